extension WildcardPattern {
    /// One run of a pattern and its camelCase parts, as ``WordSplitter/Segment`` is for text.
    public struct WordSegment: Sendable, Hashable {
        /// The whole run, e.g. `iPhone*` in `"iPhone* case"`.
        public var run: WildcardPattern
        /// The run cut at lowercase→uppercase transitions, e.g. `i`, `Phone*`.
        public var parts: [WildcardPattern]
    }

    /// The pattern cut into runs and words by the rules of ``WordSplitter``, with `*` and `?` counted as word
    /// characters so that wildcards stay attached to their word.
    ///
    /// ```swift
    /// WildcardPattern(glob: "love paris*").wordSegments.flatMap(\.parts)  // [love, paris*]
    /// WildcardPattern(glob: "paris-fr?nce").wordSegments.flatMap(\.parts) // [paris, fr?nce]
    /// ```
    ///
    /// An escaped (literal) `*` or `?` is punctuation and separates words.
    public var wordSegments: [WordSegment] {
        enum Unit {
            case scalar(Unicode.Scalar)
            case wildcard(Element)
        }
        var units: [Unit] = []
        for element in elements {
            switch element {
            case .literal(let text): units += text.unicodeScalars.map(Unit.scalar)
            case .anyRun, .anyCharacter: units.append(.wildcard(element))
            }
        }
        let classes = units.lazy.map { unit -> WordCharacterClass in
            switch unit {
            case .scalar(let scalar): return WordCharacterClass(of: scalar)
            case .wildcard: return .word(isLowercase: false, isUppercase: false)
            }
        }
        func pattern(_ range: Range<Int>) -> WildcardPattern {
            WildcardPattern(units[range].map { unit -> Element in
                switch unit {
                case .scalar(let scalar): return .literal(String(scalar))
                case .wildcard(let element): return element
                }
            })
        }
        return WordSegmentation.segments(classes).map { segment in
            WordSegment(run: pattern(segment.run), parts: segment.parts.map(pattern))
        }
    }
}
