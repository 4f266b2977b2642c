// `import CoreSpotlight` on Linux: Apple's module name for OpenCoreSpotlight, so code written from Apple's
// documentation compiles unchanged. Depend on this product only on Linux
// (`.product(name: "CoreSpotlight", package: "OpenSpotlight", condition: .when(platforms: [.linux]))`); on Apple
// platforms `import CoreSpotlight` is the system framework.
// Deviation: on Apple platforms this module is empty; a package that links it there would shadow the framework.
#if !canImport(Darwin)
@_exported import OpenCoreSpotlight
#endif
