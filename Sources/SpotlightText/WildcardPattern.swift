/// A whole-string pattern with `*` (any run of characters) and `?` (exactly one character) wildcards.
///
/// Characters are Swift `Character`s (extended grapheme clusters) and compare by canonical equivalence. The
/// pattern must match the **entire** string: `paris*` is a prefix test, `*paris` a suffix test, `*paris*` a
/// substring test.
///
/// ```swift
/// let pattern = WildcardPattern(glob: "par?s*")
/// pattern.matches("paris-france.jpg")  // true
/// pattern.matches("Paris")             // false
/// ```
///
/// Patterns with no wildcard, a single trailing `*`, a single leading `*`, or `*literal*` take fast paths
/// (equality, prefix, suffix, substring); others use a linear backtracking matcher over characters.
public struct WildcardPattern: Sendable, Hashable, CustomStringConvertible {
    /// One piece of a pattern.
    public enum Element: Sendable, Hashable {
        /// Text that must appear as is (wildcard characters in it are literal).
        case literal(String)
        /// `*`: any run of zero or more characters.
        case anyRun
        /// `?`: exactly one character.
        case anyCharacter
    }

    /// The pieces of the pattern, normalised: adjacent literals merged, empty literals dropped, consecutive
    /// `*` collapsed into one.
    public let elements: [Element]

    /// How ``matches(_:)`` proceeds, chosen once.
    private let shape: Shape

    private enum Shape: Sendable {
        case exact(String)
        case prefix(String)
        case suffix(String)
        case contains(String)
        case anything
        case general([Step])
    }

    private enum Step: Sendable {
        case character(Character)
        case one
        case run
    }

    /// A pattern from its pieces.
    ///
    /// - Parameter elements: literal text and wildcards, in order; normalised as described at ``elements``.
    public init(_ elements: [Element]) {
        var normalized: [Element] = []
        for element in elements {
            switch (element, normalized.last) {
            case (.literal(let text), _) where text.isEmpty:
                continue
            case (.literal(let text), .literal(let previous)?):
                normalized[normalized.count - 1] = .literal(previous + text)
            case (.anyRun, .anyRun?):
                continue
            default:
                normalized.append(element)
            }
        }
        self.elements = normalized
        self.shape = Self.shape(of: normalized)
    }

    /// A pattern that matches exactly one string.
    public init(literal: String) {
        self.init([.literal(literal)])
    }

    /// A pattern from glob text: `*` and `?` are wildcards, `\` makes the next Unicode scalar literal.
    ///
    /// ```swift
    /// WildcardPattern(glob: #"Lunch\?"#).matches("Lunch?")  // true
    /// ```
    public init(glob: String) {
        var elements: [Element] = []
        var literal = ""
        var escaped = false
        for scalar in glob.unicodeScalars {
            if escaped {
                literal.unicodeScalars.append(scalar)
                escaped = false
                continue
            }
            switch scalar {
            case "\\": escaped = true
            case "*", "?":
                elements.append(.literal(literal))
                literal = ""
                elements.append(scalar == "*" ? .anyRun : .anyCharacter)
            default: literal.unicodeScalars.append(scalar)
            }
        }
        if escaped { literal.append("\\") }
        elements.append(.literal(literal))
        self.init(elements)
    }

    /// Whether the pattern has any wildcard.
    public var hasWildcards: Bool {
        elements.contains { if case .literal = $0 { false } else { true } }
    }

    /// The literal text every match starts with (empty if the pattern starts with a wildcard).
    public var literalPrefix: String {
        if case .literal(let text)? = elements.first { return text }
        return ""
    }

    /// The pattern's text when it is a literal (`library`) or a literal and a trailing `*` (`lib*`), with which of
    /// the two it is; `nil` for any other pattern.
    public var literalOrPrefix: (text: String, isPrefix: Bool)? {
        switch shape {
        case .exact(let text): return (text, false)
        case .prefix(let text): return (text, true)
        default: return nil
        }
    }

    /// Whether the pattern is a single `*`, which matches every string including the empty one.
    public var matchesEverything: Bool {
        elements == [.anyRun]
    }

    /// The same pattern with every literal transformed (for example folded), wildcards kept.
    public func mapLiterals(_ transform: (String) -> String) -> WildcardPattern {
        WildcardPattern(elements.map { element in
            if case .literal(let text) = element { return .literal(transform(text)) }
            return element
        })
    }

    /// Whether the pattern matches the whole of a string.
    ///
    /// - Parameter s: the candidate, already folded the same way as the pattern's literals.
    public func matches(_ s: String) -> Bool {
        switch shape {
        case .exact(let text): return s == text
        case .prefix(let text): return s.hasPrefix(text)
        case .suffix(let text): return s.hasSuffix(text)
        case .contains(let text): return s.contains(text)
        case .anything: return true
        case .general(let steps): return Self.matches(steps, Array(s))
        }
    }

    /// Glob text that ``init(glob:)`` turns back into this pattern.
    public var description: String {
        var text = ""
        for element in elements {
            switch element {
            case .anyRun: text += "*"
            case .anyCharacter: text += "?"
            case .literal(let literal):
                for scalar in literal.unicodeScalars {
                    if scalar == "*" || scalar == "?" || scalar == "\\" { text += "\\" }
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text
    }

    public static func == (lhs: WildcardPattern, rhs: WildcardPattern) -> Bool {
        lhs.elements == rhs.elements
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(elements)
    }

    // MARK: - Matching

    private static func shape(of elements: [Element]) -> Shape {
        switch elements.count {
        case 0:
            return .exact("")
        case 1:
            if case .literal(let text) = elements[0] { return .exact(text) }
            if case .anyRun = elements[0] { return .anything }
        case 2:
            if case .literal(let text) = elements[0], case .anyRun = elements[1] { return .prefix(text) }
            if case .anyRun = elements[0], case .literal(let text) = elements[1] { return .suffix(text) }
        case 3:
            if case .anyRun = elements[0], case .literal(let text) = elements[1], case .anyRun = elements[2] {
                return .contains(text)
            }
        default:
            break
        }
        var steps: [Step] = []
        for element in elements {
            switch element {
            case .literal(let text): steps += text.map(Step.character)
            case .anyCharacter: steps.append(.one)
            case .anyRun: steps.append(.run)
            }
        }
        return .general(steps)
    }

    /// Classic glob matching with backtracking to the last `*`: O(pattern × text) in the worst case.
    private static func matches(_ steps: [Step], _ text: [Character]) -> Bool {
        var p = 0
        var t = 0
        var starStep: Int? = nil
        var starText = 0
        while t < text.count {
            if p < steps.count {
                switch steps[p] {
                case .run:
                    starStep = p
                    starText = t
                    p += 1
                    continue
                case .one:
                    p += 1
                    t += 1
                    continue
                case .character(let c) where c == text[t]:
                    p += 1
                    t += 1
                    continue
                case .character:
                    break
                }
            }
            guard let star = starStep else { return false }
            p = star + 1
            starText += 1
            t = starText
        }
        while p < steps.count, case .run = steps[p] { p += 1 }
        return p == steps.count
    }
}
