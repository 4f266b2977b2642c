import CLibXML2
import Foundation

// schema.org entities from HTML microdata (`itemscope`, `itemtype`, `itemprop`, `itemid`, `itemref`), following the
// HTML standard's algorithm for an item's properties. Invariants: tree walks are iterative; nesting of items is
// bounded by `Limits.itemDepth` and never re-enters an item being read (an `itemref` cycle); all walks together
// visit at most `Microdata.visitBudget` elements per page, however `itemref`s share subtrees.

/// Reads the microdata items of one parsed document.
final class Microdata {
    /// The most elements visited while reading a page's items.
    static let visitBudget = 2_000_000
    /// The most `itemref` ids followed per item.
    static let itemrefsPerItem = 20

    private let document: xmlDocPtr
    private let base: URL
    private var remaining = Microdata.visitBudget
    /// Elements by `id`, built on the first `itemref`.
    private var elementsByID: [String: XMLNode]?

    private init(document: xmlDocPtr, base: URL) {
        self.document = document
        self.base = base
    }

    /// The items of a document.
    ///
    /// - Parameters:
    ///   - topLevel: the elements with `itemscope` and no `itemprop`, in document order.
    ///   - document: the document they belong to.
    ///   - base: what relative URL values are resolved against.
    /// - Returns: one item per top-level element (its nested items inside it).
    static func items(topLevel: [XMLNode], document: xmlDocPtr, base: URL) -> [StructuredItem] {
        let reader = Microdata(document: document, base: base)
        var items: [StructuredItem] = []
        for element in topLevel.prefix(Limits.entitiesPerPage) {
            var inProgress: Set<XMLNode> = []
            items.append(reader.item(element, depth: 0, inProgress: &inProgress))
            if reader.remaining <= 0 { break }
        }
        return items
    }

    /// One item: its types, id and properties.
    ///
    /// - Parameters:
    ///   - element: the element with `itemscope`.
    ///   - depth: how deep the item is nested in other items.
    ///   - inProgress: the items being read around this one.
    private func item(_ element: XMLNode, depth: Int, inProgress: inout Set<XMLNode>) -> StructuredItem {
        inProgress.insert(element)
        defer { inProgress.remove(element) }
        let types = (element.attribute("itemtype") ?? "")
            .split(whereSeparator: { $0.isWhitespace })
            .prefix(Limits.valuesPerProperty)
            .map { schemaName(String($0)) }
        let id = element.attribute("itemid").map { clampedText($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        var item = StructuredItem(types: types, id: id?.isEmpty == false ? id : nil, source: .microdata)

        // Visits one element of the item's home subtree (or of an `itemref`ed subtree) as a possible property.
        func consider(_ node: XMLNode) -> WalkStep {
            guard node.isElement else { return .skipChildren }
            remaining -= 1
            guard remaining > 0 else { return .stop }
            let isScope = node.hasAttribute("itemscope")
            if let names = node.attribute("itemprop") {
                let value: StructuredValue?
                if isScope {
                    value = depth + 1 < Limits.itemDepth && !inProgress.contains(node)
                        ? .item(self.item(node, depth: depth + 1, inProgress: &inProgress))
                        : nil
                } else {
                    value = .text(propertyValue(node))
                }
                if let value {
                    for name in names.split(whereSeparator: { $0.isWhitespace }).prefix(10) {
                        let key = schemaName(String(name))
                        guard !key.isEmpty else { continue }
                        var values = item.properties[key] ?? []
                        guard values.count < Limits.valuesPerProperty,
                              !values.isEmpty || item.properties.count < Limits.propertiesPerItem else { continue }
                        values.append(value)
                        item.properties[key] = values
                    }
                }
            }
            return isScope ? .skipChildren : .descend
        }

        walkDescendants(of: element) { consider($0) }
        if let references = element.attribute("itemref") {
            var followed: Set<XMLNode> = [element]
            for reference in references.split(whereSeparator: { $0.isWhitespace }).prefix(Microdata.itemrefsPerItem) {
                guard remaining > 0, let target = self.element(withID: String(reference)),
                      !followed.contains(target), !inProgress.contains(target) else { continue }
                followed.insert(target)
                if consider(target) == .descend {
                    walkDescendants(of: target) { consider($0) }
                }
            }
        }
        return item
    }

    /// A property's value, as the HTML standard defines it for the element, with a `content` attribute winning as
    /// search engines read it (`<span itemprop="price" content="19.99">$19.99</span>`).
    private func propertyValue(_ element: XMLNode) -> String {
        if let content = element.attribute("content") { return clampedText(content) }
        let url: (StaticString) -> String = { name in
            let raw = element.attribute(name) ?? ""
            return clampedText(WebURL.resolve(raw, against: self.base)?.absoluteString ?? raw)
        }
        switch element.name {
        case "meta": return ""
        case "audio", "embed", "iframe", "img", "source", "track", "video": return url("src")
        case "a", "area", "link": return url("href")
        case "object": return url("data")
        case "data", "meter": return clampedText(element.attribute("value") ?? "")
        case "time":
            if let datetime = element.attribute("datetime") { return clampedText(datetime) }
        default: break
        }
        return clampedText(collapsingWhitespace(element.textContent(limit: Limits.textLength * 4)))
    }

    /// The first element with this `id`.
    private func element(withID id: String) -> XMLNode? {
        if elementsByID == nil {
            var index: [String: XMLNode] = [:]
            walkDocument(document) { node in
                guard node.isElement else { return .skipChildren }
                if let id = node.attribute("id"), index[id] == nil { index[id] = node }
                return .descend
            }
            elementsByID = index
        }
        return elementsByID?[id]
    }
}
