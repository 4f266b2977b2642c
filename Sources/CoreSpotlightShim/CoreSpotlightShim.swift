// Import this module to use Apple's Core Spotlight where it exists and OpenCoreSpotlight everywhere else.
#if canImport(CoreSpotlight)
@_exported import CoreSpotlight
#else
@_exported import OpenCoreSpotlight
#endif
