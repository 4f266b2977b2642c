import CLibXML2

// The thin layer over libxml2's tree. Invariants: nothing here recurses (trees may be 100,000 levels deep), nothing
// allocates through libxml2 (so nothing needs `xmlFree`), and a node pointer is used only while its document lives.

/// A node of a libxml2 tree.
typealias XMLNode = UnsafeMutablePointer<xmlNode>

/// libxml2's process-wide set-up.
enum LibXML {
    /// `xmlInitParser()`, run once: a `static let` is initialised under `swift_once`, so threads that parse at the
    /// same time wait for one initialisation instead of racing through libxml2's.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// Makes sure libxml2 is initialised; call before any parse.
    static func initialize() {
        _ = initialized
    }
}

/// What a tree walk does after visiting a node.
enum WalkStep {
    /// Visit the node's children next.
    case descend
    /// Go on with the node's next sibling (or its ancestors' next siblings).
    case skipChildren
    /// End the walk.
    case stop
}

/// Visits the descendants of a container in document order (the container itself excluded), without recursion.
///
/// - Parameters:
///   - first: the container's first child.
///   - container: the container (an element or the document), where climbing back up stops.
///   - visit: called for every node; its answer steers the walk. Only elements are descended into.
func walkDescendants(from first: XMLNode?, inside container: UnsafeMutableRawPointer, _ visit: (XMLNode) -> WalkStep) {
    var next = first
    while let node = next {
        switch visit(node) {
        case .stop:
            return
        case .descend where node.pointee.type == XML_ELEMENT_NODE && node.pointee.children != nil:
            next = node.pointee.children
            continue
        default:
            break
        }
        // The next sibling, else the nearest ancestor's next sibling, stopping at the container.
        var climbing: XMLNode? = node
        next = nil
        while let current = climbing {
            if let sibling = current.pointee.next {
                next = sibling
                break
            }
            guard let parent = current.pointee.parent, UnsafeMutableRawPointer(parent) != container else { return }
            climbing = parent
        }
    }
}

/// Visits the descendants of an element in document order, without recursion.
func walkDescendants(of element: XMLNode, _ visit: (XMLNode) -> WalkStep) {
    walkDescendants(from: element.pointee.children, inside: UnsafeMutableRawPointer(element), visit)
}

/// Visits every node of a document in document order, without recursion.
func walkDocument(_ document: xmlDocPtr, _ visit: (XMLNode) -> WalkStep) {
    walkDescendants(from: document.pointee.children, inside: UnsafeMutableRawPointer(document), visit)
}

/// A libxml2 string (UTF-8, NUL-terminated) as a Swift string; invalid UTF-8 is repaired with U+FFFD.
func string(_ xml: UnsafePointer<xmlChar>?) -> String? {
    guard let xml else { return nil }
    return String(cString: xml)
}

/// Whether a libxml2 string equals an ASCII string exactly, without creating a Swift string.
func xmlEquals(_ xml: UnsafePointer<xmlChar>?, _ ascii: StaticString) -> Bool {
    guard let xml else { return false }
    let expected = UnsafeRawBufferPointer(start: ascii.utf8Start, count: ascii.utf8CodeUnitCount)
    var index = 0
    while index < expected.count {
        if xml[index] != expected[index] { return false }
        index += 1
    }
    return xml[index] == 0
}

extension UnsafeMutablePointer where Pointee == xmlNode {
    /// Whether this is an element.
    var isElement: Bool { pointee.type == XML_ELEMENT_NODE }

    /// Whether this is an element of this (lower-case) name; the HTML parser lower-cases names.
    func isElement(_ name: StaticString) -> Bool {
        isElement && xmlEquals(pointee.name, name)
    }

    /// The element's name.
    var name: String { string(pointee.name) ?? "" }

    /// The attribute's node, when the element has it.
    private func attributeNode(_ name: StaticString) -> UnsafeMutablePointer<xmlAttr>? {
        var attribute = pointee.properties
        while let current = attribute {
            if xmlEquals(current.pointee.name, name) { return current }
            attribute = current.pointee.next
        }
        return nil
    }

    /// Whether the element has the attribute, with or without a value (`itemscope`).
    func hasAttribute(_ name: StaticString) -> Bool {
        attributeNode(name) != nil
    }

    /// The attribute's value (`""` for a bare attribute), or `nil` when the element lacks it.
    func attribute(_ name: StaticString) -> String? {
        guard let attribute = attributeNode(name) else { return nil }
        var value = ""
        var child = attribute.pointee.children
        while let node = child {
            if let content = string(node.pointee.content) { value += content }
            child = node.pointee.next
        }
        return value
    }

    /// The text of the node and its descendants (text and CDATA only), at most `limit` UTF-8 bytes (cut at a
    /// character boundary).
    func textContent(limit: Int = 100_000) -> String {
        var bytes: [UInt8] = []
        func append(_ node: XMLNode) {
            guard node.pointee.type == XML_TEXT_NODE || node.pointee.type == XML_CDATA_SECTION_NODE,
                  let content = node.pointee.content else { return }
            var index = 0
            while content[index] != 0, bytes.count < limit {
                bytes.append(content[index])
                index += 1
            }
        }
        if isElement {
            walkDescendants(of: self) { node in
                append(node)
                return bytes.count < limit ? .descend : .stop
            }
        } else {
            append(self)
        }
        // A cut may split a character: decoding repairs it with U+FFFD, then the repair is dropped.
        var text = String(decoding: bytes, as: UTF8.self)
        if bytes.count >= limit, text.last == "\u{FFFD}" { text.removeLast() }
        return text
    }
}
