// Import this module to use Apple's Core Spotlight where it exists and OpenCoreSpotlight everywhere else.
// `canImport(Darwin)`: on Linux this package has a module named CoreSpotlight itself.
#if canImport(Darwin)
@_exported import CoreSpotlight
#else
@_exported import OpenCoreSpotlight
#endif
