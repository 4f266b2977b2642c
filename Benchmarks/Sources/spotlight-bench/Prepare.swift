// `spotlight-bench prepare [--corpus pypi|debian] [--repeats N]`: times what a bulk load does to its items before
// the database sees them (tokenizing, encoding the records, the prefix-list offers, numbering a window's terms), on
// one thread, with nothing else running: the figure that changes when that code does, without the noise of a
// whole bulk load.
import Foundation
import SpotlightEngine

enum PrepareProbe {
    static func runIfRequested(_ arguments: [String]) throws -> Bool {
        guard arguments.count > 1, arguments[1] == "prepare" else { return false }
        var corpus = "pypi", repeats = 3
        var rest = arguments.dropFirst(2).makeIterator()
        while let argument = rest.next() {
            switch argument {
            case "--corpus": corpus = rest.next() ?? corpus
            case "--repeats": repeats = Int(rest.next() ?? "") ?? repeats
            default: throw BenchError("prepare: unknown argument \(argument)")
            }
        }
        let data = try Options(arguments: [arguments[0]]).dataDirectory
        let items = corpus == "pypi" ? try loadPyPI(data) : try loadDebian(data)
        let operations = items.map { IndexOperation.upsert(stored($0)) }
        for run in 1...repeats {
            let start = DispatchTime.now().uptimeNanoseconds
            let terms = BulkPreparation.prepareSerially(operations)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            print(String(format: "prepare %@ run %d: %d items in %.2f s, %.0f items/s on one thread (%d window terms)",
                         corpus, run, operations.count, seconds, Double(operations.count) / seconds, terms))
        }
        return true
    }

    /// The item `ItemConversion` stores for the bench's `searchable(_:)`.
    static func stored(_ item: CorpusItem) -> StoredItem {
        var attributes: [String: AttributeValue] = [
            "title": .string(item.title), "contentDescription": .string(item.description),
            "keywords": .array(item.keywords.map { .string($0) }), "contentType": .string("public.text"),
            "contentTypeTree": .array(["public.text", "public.plain-text", "public.data", "public.item", "public.content"].map { .string($0) }),
            "domainIdentifier": .string(item.domain),
        ]
        if !item.body.isEmpty { attributes["textContent"] = .string(item.body) }
        if let month = item.month { attributes["contentModificationDate"] = .date(month) }
        if let hint = item.rankHint { attributes["rankingHint"] = .double(Double(hint)) }
        return StoredItem(uniqueIdentifier: item.id, domainIdentifier: item.domain, expirationDate: .distantFuture,
                          attributes: attributes)
    }
}
