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
///
/// Since format 6 an item's domain identifier is also posted under terms of their own, its tokens after
/// `domainTermPrefix` (a control character, which no token has), so that `domainIdentifier == "text"` names the
/// items of that domain only: in the metadata tier, `text` is also a word of every item's `public.text` content
/// type, and a filter on a dozen domains named every item of the index (each ranked match was then read to be
/// checked). The planner asks for them with `domainLookupBit`.
///
/// Since format 12 an item's domain identifier is also posted whole, and each of its dot-prefixes, after
/// `exactDomainTermPrefix` (`exactDomainTerms`): the terms that name the items of a domain and its sub-domains
/// (`DomainMatch`) exactly, byte for byte, so that deleting, counting and listing a domain read its postings and
/// a store needs no index of its items by domain (`item_domain`, 13 MB of PyPI's 274 MB index).
///
/// Since format 8 the words of the keyword tier are also posted after `keywordTermPrefix`, in that tier only, so
/// an attribute query on `keywords` reads the postings of keywords alone: `keywords == "li*"cwdt` read every
/// posting of every term starting with `li` (122,000 on Debian, in all tiers) to keep those in the keyword tier.
enum TextIndexer {
    static let metadataBit: UInt8 = 1 << 4
    static let freeTextMask: UInt8 = 0x0F
    /// What the domain's own terms start with.
    static let domainTermPrefix = "\u{1}"
    static let domainTermPrefixByte = domainTermPrefix.utf8.first!
    /// In a `TermLookup.tieredTerm`'s tiers only (never in a posting: the codec keeps 5 bits): the word is a
    /// domain's, read from the domain's own terms where the store has them (`TermLookup.resolved`).
    static let domainLookupBit: UInt8 = 1 << 5
    /// What the keyword tier's own terms start with (format 8).
    static let keywordTermPrefix = "\u{2}"
    static let keywordTermPrefixByte = keywordTermPrefix.utf8.first!
    /// The keyword tier's bit.
    static let keywordBit: UInt8 = 1 << 1
    /// What an exact domain term starts with (format 12): the whole domain identifier or one of its dot-prefixes
    /// follows, as it is stored (case and all).
    static let exactDomainTermPrefix = "\u{3}"
    /// The term of the items whose domain has more dot-prefixes or bytes than `exactDomainTerms` posts: a domain
    /// those terms cannot name is looked up among them (and their rows checked).
    static let longDomainTerm = "\u{4}"
    /// An item posts at most this many of its domain's exact terms (its first dot-prefixes, then the domain)...
    static let maximumExactDomainTerms = 8
    /// ... each at most this many bytes long.
    static let maximumExactDomainBytes = 256

    /// Whether a term is one of the index's own (a domain's or the keyword tier's), not a word of any text.
    static func isOwnTerm(_ text: String) -> Bool {
        guard let first = text.utf8.first else { return false }
        return isOwnTerm(firstByte: first)
    }

    /// Whether a term whose first UTF-8 byte is `first` is one of the index's own.
    static func isOwnTerm(firstByte first: UInt8) -> Bool { first >= 1 && first <= 4 }

    /// The domains an item of `domain` belongs to for `DomainMatch`, shortest first: each prefix that ends before a
    /// `.` (`a` and `a.b` for `a.b.c`, `a` and `a.` for `a..b`), then the domain itself.
    static func matchingDomains(_ domain: String) -> [Substring] {
        var result: [Substring] = []
        for index in domain.utf8.indices where domain.utf8[index] == UInt8(ascii: ".") {
            result.append(domain[..<index])
        }
        result.append(domain[...])
        return result
    }

    /// The exact domain terms an item of `domain` posts: the terms of its first `maximumExactDomainTerms`
    /// matching domains (`matchingDomains`) of at most `maximumExactDomainBytes` bytes, and `longDomainTerm` when
    /// that leaves some out. So a domain with fewer than `maximumExactDomainTerms` dots and at most
    /// `maximumExactDomainBytes` bytes finds every item of it and its sub-domains under its own term
    /// (`exactDomainTerm(for:)`); any other under `longDomainTerm`.
    static func exactDomainTerms(_ domain: String) -> [String] {
        let matching = matchingDomains(domain)
        var terms: [String] = []
        for prefix in matching.prefix(maximumExactDomainTerms) where prefix.utf8.count <= maximumExactDomainBytes {
            terms.append(exactDomainTermPrefix + prefix)
        }
        if terms.count < matching.count { terms.append(longDomainTerm) }
        return terms
    }

    /// The term whose postings hold every item of `domain` and its sub-domains (with others, for
    /// `longDomainTerm`: their rows say which).
    static func exactDomainTerm(for domain: String) -> String {
        let dots = domain.utf8.count(where: { $0 == UInt8(ascii: ".") })
        if dots < maximumExactDomainTerms, domain.utf8.count <= maximumExactDomainBytes {
            return exactDomainTermPrefix + domain
        }
        return longDomainTerm
    }

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
        var terms = ItemTerms()
        collectTerms(attributes: attributes, custom: custom, domain: domain, into: &terms)
        return terms.dictionary
    }

    /// An item's terms (`terms(attributes:custom:domain:)`) into `terms`, emptied first, as bytes: a bulk load
    /// prepares each item's terms into the same table.
    static func collectTerms(attributes: [String: AttributeValue], custom: [String: CustomAttribute], domain: String?,
                             into terms: inout ItemTerms) {
        terms.removeAll()
        if let domain {
            for term in exactDomainTerms(domain) { terms.add(term, tiers: metadataBit) }
        }
        func add(_ s: String, bit: UInt8, domain: Bool = false) {
            Tokenizer.forEachIndexToken(s) { token in
                terms.add(token, tiers: bit)
                if bit == keywordBit { terms.add(token, after: keywordTermPrefixByte, tiers: keywordBit) }
                if domain { terms.add(token, after: domainTermPrefixByte, tiers: metadataBit) }
            }
        }
        for (name, value) in attributes {
            guard let bit = tierBit(forAttribute: name) else { continue }
            // (`StoredItemQueryView` answers `domainIdentifier` from the attribute set when it has one.)
            let isDomain = name == "domainIdentifier"
            value.forEachSearchableString { add($0, bit: isDomain ? metadataBit : bit, domain: isDomain) }
        }
        // The item's domain is queryable as `domainIdentifier` even when the attribute set does not repeat it.
        if let domain, attributes["domainIdentifier"] == nil {
            add(domain, bit: metadataBit, domain: true)
        }
        for (_, attribute) in custom where attribute.isSearchable {
            let bit = attribute.isSearchableByDefault ? 1 << 3 : metadataBit
            attribute.value.forEachSearchableString { add($0, bit: bit) }
        }
    }

    /// The terms of the attributes of one free-text tier (0…3) only, with that tier's bit: what a match in that
    /// tier can have matched.
    static func terms(attributes: [String: AttributeValue], custom: [String: CustomAttribute], onlyTier tier: Int)
        -> [String: UInt8]
    {
        let bit: UInt8 = 1 << UInt8(tier)
        var result: [String: UInt8] = [:]
        func add(_ strings: [String]) {
            for s in strings {
                for token in Tokenizer.indexTokens(s) { result[token] = bit }
            }
        }
        for (name, value) in attributes where tierBit(forAttribute: name) == bit {
            add(value.searchableStrings)
        }
        if bit == 1 << 3 {
            for (_, attribute) in custom where attribute.isSearchable && attribute.isSearchableByDefault {
                add(attribute.value.searchableStrings)
            }
        }
        return result
    }

    /// The best (lowest) tier in a mask, 0…3, or nil if the mask has no free-text tier.
    static func bestTier(_ mask: UInt8) -> Int? {
        let free = mask & freeTextMask
        return free == 0 ? nil : free.trailingZeroBitCount
    }
}
