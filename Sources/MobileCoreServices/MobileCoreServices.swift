// `import MobileCoreServices` on Linux, for code that uses the legacy `kUTType…` constants
// (`CSSearchableItemAttributeSet(itemContentType: kUTTypeImage as String)`). Depend on this product only on Linux
// (`condition: .when(platforms: [.linux])`); on Apple platforms it is the system framework.
// Deviation: only the `kUTType…` constants (and `UTType`) are provided; the rest of MobileCoreServices is not.
#if !canImport(Darwin)
@_exported import OpenUniformTypeIdentifiers
#endif
