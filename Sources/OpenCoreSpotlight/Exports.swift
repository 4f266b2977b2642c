// `UTType` (and, on Linux, the legacy `kUTType…` constants) come with `import OpenCoreSpotlight`, as Apple's
// CoreSpotlight headers bring UniformTypeIdentifiers along.
@_exported import OpenUniformTypeIdentifiers
