// `import UniformTypeIdentifiers` on Linux: Apple's module name for OpenSpotlight's `UTType`, so code written for
// Apple platforms compiles unchanged. Depend on this product only on Linux
// (`condition: .when(platforms: [.linux])`); on Apple platforms it is the system framework.
// Deviation: on Linux the legacy `kUTType…` constants come with it too (on Apple platforms they are in
// MobileCoreServices / CoreServices).
#if !canImport(Darwin)
@_exported import OpenUniformTypeIdentifiers
#endif
