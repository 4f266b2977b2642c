import Foundation
import SpotlightText

/// Turns an item's attributes into the terms the inverted index stores.
///
/// Every string-valued attribute is tokenized (so attribute queries can find candidates through the index), but
/// only attributes with a text tier (title, keywords, description, body…) take part in free-text search. Each term
/// carries a bit mask of the tiers it occurs in:
///
/// | bit | meaning |
/// |---|---|
/// | 0 | name tier: `title`, `displayName` |
/// | 1 | keyword tier: `keywords`, `alternateNames` |
/// | 2 | description tier: `contentDescription`, … |
/// | 3 | body tier: `textContent`, other text, custom keys searchable by default |
/// | 4 | metadata: searchable by attribute name only (`contentType`, `path`, custom keys not searchable by default) |
enum TextIndexer {
    static let metadataBit: UInt8 = 1 << 4
    static let freeTextMask: UInt8 = 0x0F

    /// The tier bit of an attribute, or `nil` if its values are never indexed.
    static func tierBit(forAttribute name: String) -> UInt8? {
        guard let descriptor = AttributeCatalog.descriptor(named: name) else { return metadataBit }
        if let tier = descriptor.textTier { return 1 << UInt8(tier.rawValue) }
        return metadataBit
    }

    /// Term → tier mask for an item.
    static func terms(attributes: [String: AttributeValue], custom: [String: CustomAttribute], domain: String? = nil)
        -> [String: UInt8]
    {
        var result: [String: UInt8] = [:]
        func add(_ strings: [String], bit: UInt8) {
            for s in strings {
                for token in Tokenizer.indexTokens(s) {
                    result[token, default: 0] |= bit
                }
            }
        }
        for (name, value) in attributes {
            let strings = value.searchableStrings
            guard !strings.isEmpty, let bit = tierBit(forAttribute: name) else { continue }
            add(strings, bit: bit)
        }
        // The item's domain is queryable as `domainIdentifier` even when the attribute set does not repeat it.
        if let domain, attributes["domainIdentifier"] == nil {
            add([domain], bit: metadataBit)
        }
        for (_, attribute) in custom where attribute.isSearchable {
            let strings = attribute.value.searchableStrings
            guard !strings.isEmpty else { continue }
            add(strings, bit: attribute.isSearchableByDefault ? 1 << 3 : metadataBit)
        }
        return result
    }

    /// The best (lowest) tier in a mask, 0…3, or nil if the mask has no free-text tier.
    static func bestTier(_ mask: UInt8) -> Int? {
        let free = mask & freeTextMask
        return free == 0 ? nil : free.trailingZeroBitCount
    }
}
