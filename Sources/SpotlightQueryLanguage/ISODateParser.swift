/// Parses the ISO-8601 forms `$time.iso(…)` accepts.
///
/// `YYYY-MM-DD`, optionally followed by `T` (or a space) and `hh:mm`, `hh:mm:ss` or `hh:mm:ss.fraction`, optionally
/// followed by `Z` or an offset `±hh`, `±hhmm`, `±hh:mm`. `T` and `Z` may be lowercase. Fields are range-checked
/// against the Gregorian calendar (`2025-02-29` is rejected; `23:59:60` is accepted as a leap second).
enum ISODateParser {
    static func parse(_ text: String) -> ISODateTime? {
        var reader = Reader(Array(text.unicodeScalars))
        guard let year = reader.digits(4), reader.take("-"),
              let month = reader.digits(2), reader.take("-"),
              let day = reader.digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day) else { return nil }
        var date = ISODateTime(year: year, month: month, day: day)
        if reader.isAtEnd { return date }

        guard reader.take("T") || reader.take("t") || reader.take(" "),
              let hour = reader.digits(2), reader.take(":"), let minute = reader.digits(2)
        else { return nil }
        var second = 0
        var nanosecond = 0
        if reader.take(":") {
            guard let s = reader.digits(2) else { return nil }
            second = s
            if reader.take(".") || reader.take(",") {
                var fraction = ""
                while let d = reader.peekDigit() {
                    fraction.append(Character(d))
                    reader.position += 1
                }
                guard !fraction.isEmpty else { return nil }
                let nine = String((fraction + "000000000").prefix(9))
                nanosecond = Int(nine) ?? 0
            }
        }
        guard hour <= 23, minute <= 59, second <= 60 else { return nil }
        date.time = .init(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
        if reader.isAtEnd { return date }

        if reader.take("Z") || reader.take("z") {
            date.utcOffset = 0
        } else if let sign = reader.peek(), sign == "+" || sign == "-" {
            reader.position += 1
            guard let hours = reader.digits(2) else { return nil }
            var minutes = 0
            if reader.take(":") {
                guard let m = reader.digits(2) else { return nil }
                minutes = m
            } else if let m = reader.digits(2) {
                minutes = m
            }
            guard hours <= 23, minutes <= 59 else { return nil }
            date.utcOffset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
        return reader.isAtEnd ? date : nil
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private struct Reader {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        var isAtEnd: Bool { position >= scalars.count }

        func peek() -> Unicode.Scalar? {
            position < scalars.count ? scalars[position] : nil
        }

        func peekDigit() -> Unicode.Scalar? {
            guard let scalar = peek(), ("0"..."9").contains(scalar) else { return nil }
            return scalar
        }

        mutating func take(_ scalar: Unicode.Scalar) -> Bool {
            guard peek() == scalar else { return false }
            position += 1
            return true
        }

        /// Exactly `count` ASCII digits as a number.
        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = peekDigit() else { return nil }
                value = value * 10 + Int(digit.value - 48)
                position += 1
            }
            return value
        }
    }
}
