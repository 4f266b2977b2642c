// schema.org entities from JSON-LD blocks. Invariants: conversion recursion is bounded by `JSONLD.maxDepth`,
// `@id` references are followed only within the page and never around a cycle, and every list is capped
// (`Limits`), so a hostile block costs at most a bounded amount of work and memory.

/// Caps shared by JSON-LD and microdata extraction.
enum Limits {
    /// The most top-level entities kept per page (JSON-LD and microdata together).
    static let entitiesPerPage = 500
    /// The most properties kept per entity.
    static let propertiesPerItem = 200
    /// The most values kept per property.
    static let valuesPerProperty = 100
    /// The longest text value kept, in characters.
    static let textLength = 10_000
    /// The deepest nesting of entities kept.
    static let itemDepth = 16
}

/// A schema.org name without its vocabulary prefix: `https://schema.org/Product` → `Product`.
///
/// - Parameter name: a type or property name as written.
/// - Returns: the bare name.
func schemaName(_ name: String) -> String {
    let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
    for prefix in ["http://schema.org/", "https://schema.org/", "http://www.schema.org/", "https://www.schema.org/", "schema:"]
    where trimmed.count > prefix.count && trimmed.lowercased().hasPrefix(prefix) {
        return String(trimmed.dropFirst(prefix.count))
    }
    return trimmed
}

/// Text clamped to ``Limits/textLength`` characters.
func clampedText(_ text: String) -> String {
    text.count > Limits.textLength ? String(text.prefix(Limits.textLength)) : text
}

/// Converts JSON-LD values into ``StructuredItem``s.
struct JSONLD {
    /// The deepest nesting followed (objects and arrays together).
    static let maxDepth = Limits.itemDepth * 2

    /// The most values converted per page: references may share nodes, and a page whose nodes each refer to the
    /// next one several times would otherwise grow exponentially.
    static let valueBudget = 100_000

    /// Top-level nodes with an `@id`, for resolving references such as `"author": {"@id": "#me"}`.
    private var nodesByID: [String: [JSONMember]] = [:]
    /// How many more values may be converted.
    private var remaining = JSONLD.valueBudget

    /// The entities of a page's JSON-LD blocks.
    ///
    /// - Parameter blocks: the parsed blocks, in page order.
    /// - Returns: one item per top-level node: the block itself, each element of a top-level array, each node of a
    ///   `@graph`.
    static func items(from blocks: [JSONValue]) -> [StructuredItem] {
        var nodes: [[JSONMember]] = []
        for block in blocks {
            collectTopLevelNodes(block, into: &nodes, depth: 0)
        }
        var converter = JSONLD()
        for node in nodes {
            guard let id = node.first(where: { $0.key == "@id" }), case .string(let name) = id.value,
                  node.count > 1, converter.nodesByID[name] == nil else { continue }
            converter.nodesByID[name] = node
        }
        var items: [StructuredItem] = []
        for node in nodes.prefix(Limits.entitiesPerPage) {
            var path: Set<String> = []
            items.append(converter.item(from: node, depth: 0, path: &path))
        }
        return items
    }

    /// Finds top-level nodes: objects, arrays of them, and the members of `@graph`.
    private static func collectTopLevelNodes(_ value: JSONValue, into nodes: inout [[JSONMember]], depth: Int) {
        guard depth < 4, nodes.count < Limits.entitiesPerPage else { return }
        switch value {
        case .array(let elements):
            for element in elements { collectTopLevelNodes(element, into: &nodes, depth: depth + 1) }
        case .object(let members):
            if let graph = members.first(where: { $0.key == "@graph" }) {
                collectTopLevelNodes(graph.value, into: &nodes, depth: depth + 1)
                // A graph's container may also describe an entity of its own.
                if members.contains(where: { $0.key == "@type" }) { nodes.append(members.filter { $0.key != "@graph" }) }
            } else if members.contains(where: { !$0.key.hasPrefix("@") || $0.key == "@type" }) {
                nodes.append(members)
            }
        default:
            break
        }
    }

    /// One node as an item.
    ///
    /// - Parameters:
    ///   - members: the node's members.
    ///   - depth: how deep the node is nested.
    ///   - path: the `@id`s of the nodes being converted around this one, to stop reference cycles.
    private mutating func item(from members: [JSONMember], depth: Int, path: inout Set<String>) -> StructuredItem {
        var item = StructuredItem(types: [], source: .jsonLD)
        var propertyCount = 0
        var entered: String?
        if let id = members.first(where: { $0.key == "@id" }), case .string(let name) = id.value, !path.contains(name) {
            path.insert(name)
            entered = name
        }
        defer { if let entered { path.remove(entered) } }
        for member in members {
            switch member.key {
            case "@type":
                item.types = Self.strings(member.value).map(schemaName).filter { !$0.isEmpty }
            case "@id":
                if case .string(let id) = member.value { item.id = clampedText(id) }
            default:
                guard !member.key.hasPrefix("@") else { continue }
                let name = schemaName(member.key)
                guard !name.isEmpty else { continue }
                var values: [StructuredValue] = item.properties[name] ?? []
                if values.isEmpty {
                    guard propertyCount < Limits.propertiesPerItem else { continue }
                    propertyCount += 1
                }
                appendValues(of: member.value, to: &values, depth: depth + 1, path: &path)
                if !values.isEmpty { item.properties[name] = values }
            }
        }
        return item
    }

    /// Appends a JSON value's property values: text for scalars, items for nodes, each element of an array.
    private mutating func appendValues(of value: JSONValue, to values: inout [StructuredValue], depth: Int, path: inout Set<String>) {
        guard depth <= JSONLD.maxDepth, values.count < Limits.valuesPerProperty, remaining > 0 else { return }
        remaining -= 1
        switch value {
        case .null:
            break
        case .bool(let flag):
            values.append(.text(flag ? "true" : "false"))
        case .number(let number):
            values.append(.text(number))
        case .string(let text):
            values.append(.text(clampedText(text)))
        case .array(let elements):
            for element in elements {
                appendValues(of: element, to: &values, depth: depth + 1, path: &path)
                if values.count >= Limits.valuesPerProperty { break }
            }
        case .object(let members):
            if let literal = members.first(where: { $0.key == "@value" }) {
                appendValues(of: literal.value, to: &values, depth: depth + 1, path: &path)
            } else if let list = members.first(where: { $0.key == "@list" || $0.key == "@set" }) {
                appendValues(of: list.value, to: &values, depth: depth + 1, path: &path)
            } else if members.count == 1, case .string(let id) = members[0].value, members[0].key == "@id" {
                // A reference: the node it names when the page has it (and it is not being converted), else the id.
                if let node = nodesByID[id], !path.contains(id), depth / 2 < Limits.itemDepth {
                    values.append(.item(item(from: node, depth: depth, path: &path)))
                } else {
                    values.append(.text(clampedText(id)))
                }
            } else if depth / 2 < Limits.itemDepth {
                values.append(.item(item(from: members, depth: depth, path: &path)))
            }
        }
    }

    /// The strings of a value that may be a string or an array of strings (`@type`).
    private static func strings(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let text):
            [text]
        case .array(let elements):
            elements.prefix(Limits.valuesPerProperty).compactMap { element in
                if case .string(let text) = element { text } else { nil }
            }
        default:
            []
        }
    }
}
