/// A small deterministic random number generator (SplitMix64), so a fuzz or model test that fails reproduces from
/// its seed. Testing support for OpenSpotlight's tests and for apps' own.
///
/// ```swift
/// var random = SplitMix64(state: 42)
/// let n = Int.random(in: 0..<10, using: &random)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) {
        self.state = state
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
