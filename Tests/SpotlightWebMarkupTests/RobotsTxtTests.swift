import Foundation
import XCTest

@testable import SpotlightWebMarkup

/// robots.txt, checked against the examples of Google's documentation and RFC 9309.
final class RobotsTxtTests: XCTestCase {
    private let bot = "OpenSpotlightBot/1.0 (+https://openspotlight.example/bot)"

    private func allowed(_ robots: RobotsTxt, _ path: String, agent: String? = nil) -> Bool {
        robots.isAllowed(url("https://example.com" + path), userAgent: agent ?? bot)
    }

    /// Google's "URL matching based on path values" table: (pattern, matching paths, non-matching paths).
    func testPathMatchingExamples() {
        let table: [(pattern: String, matches: [String], misses: [String])] = [
            ("/", ["/", "/anything", "/fish?x=1"], []),
            ("/*", ["/", "/anything"], []),
            ("/$", ["/"], ["/page.htm", "/?x=1"]),
            ("/fish", ["/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"],
             ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"]),
            ("/fish*", ["/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fish.php?id=anything"],
             ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"]),
            ("/fish/", ["/fish/", "/fish/?id=anything", "/fish/salmon.htm"], ["/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"]),
            ("/*.php", ["/index.php", "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters",
                        "/folder/any.php.file.html", "/filename.php/"], ["/", "/windows.PHP"]),
            ("/*.php$", ["/filename.php", "/folder/filename.php"],
             ["/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"]),
            ("/fish*.php", ["/fish.php", "/fishheads/catfish.php?parameters"], ["/Fish.PHP"]),
            ("/*?", ["/search?q=x", "/a/b?"], ["/search"]),
            ("/a$b", ["/a$b"], ["/a", "/ab"]),  // `$` is special only at the end
        ]
        for row in table {
            let robots = RobotsTxt("User-agent: *\nDisallow: \(row.pattern)")
            for path in row.matches {
                XCTAssertFalse(allowed(robots, path), "\(row.pattern) should match \(path)")
            }
            for path in row.misses {
                XCTAssertTrue(allowed(robots, path), "\(row.pattern) should not match \(path)")
            }
        }
    }

    /// Google's "Order of precedence for rules" table: the longest rule wins, Allow wins a tie.
    func testLongestMatchAndAllowTies() {
        let table: [(rules: String, path: String, allowed: Bool)] = [
            ("allow: /p\ndisallow: /", "/page", true),
            ("allow: /folder\ndisallow: /folder", "/folder/page", true),
            ("allow: /page\ndisallow: /*.htm", "/page.htm", false),
            ("allow: /page\ndisallow: /*.ph", "/page.php5", true),  // equal length (5): allow
            ("allow: /$\ndisallow: /", "/", true),
            ("allow: /$\ndisallow: /", "/page.htm", false),
            ("disallow: /private\nallow: /private/press", "/private/press/2025", true),
            ("disallow: /private\nallow: /private/press", "/private/hr", false),
            ("disallow:", "/anything", true),  // an empty Disallow allows everything
            ("allow:\ndisallow: /x", "/x", false),
            ("disallow: /", "/robots.txt", true),  // robots.txt itself is always allowed
        ]
        for row in table {
            let robots = RobotsTxt("user-agent: *\n" + row.rules)
            XCTAssertEqual(allowed(robots, row.path), row.allowed, "\(row.rules) for \(row.path)")
        }
    }

    /// Google's user-agent example: the most specific group, `*` only as a fallback, groups of one agent merged.
    func testGroupSelection() {
        let robots = RobotsTxt("""
        user-agent: googlebot-news
        disallow: /news-only

        user-agent: *
        disallow: /star-only

        user-agent: googlebot
        disallow: /web-only

        user-agent: googlebot-news
        disallow: /news-again
        """)
        let table: [(agent: String, blocked: [String], open: [String])] = [
            ("Googlebot-News", ["/news-only", "/news-again"], ["/star-only", "/web-only"]),
            ("Mozilla-compatible-not-a-token Googlebot", ["/star-only"], ["/web-only"]),  // the token is the first word
            ("Googlebot/2.1 (+http://www.google.com/bot.html)", ["/web-only"], ["/news-only", "/star-only"]),
            ("googlebot-image", ["/web-only"], ["/star-only"]),  // no own group: googlebot's
            ("Storebot-Google", ["/star-only"], ["/web-only", "/news-only"]),
            ("", ["/star-only"], ["/web-only"]),
        ]
        for row in table {
            for path in row.blocked { XCTAssertFalse(allowed(robots, path, agent: row.agent), "\(row.agent) \(path)") }
            for path in row.open { XCTAssertTrue(allowed(robots, path, agent: row.agent), "\(row.agent) \(path)") }
        }
    }

    func testSeveralAgentsShareAGroupAndCaseDoesNotMatter() {
        let robots = RobotsTxt("""
        User-Agent: Otherbot
        USER-AGENT: openspotlightbot
        DisAllow: /Private
        Crawl-Delay: 2.5

        User-agent: otherbot
        Allow: /Private/ok
        """)
        XCTAssertFalse(allowed(robots, "/Private/x"))
        XCTAssertTrue(allowed(robots, "/private/x"), "paths are case-sensitive")
        XCTAssertTrue(allowed(robots, "/Private/ok", agent: "OtherBot"), "merged group of otherbot")
        XCTAssertFalse(allowed(robots, "/Private/ok"), "not ours")
        XCTAssertEqual(robots.crawlDelay(userAgent: bot), 2.5)
        XCTAssertNil(robots.crawlDelay(userAgent: "nobody"), "no * group: no delay")
        XCTAssertTrue(allowed(robots, "/Private/x", agent: "nobody"), "no group applies: everything allowed")
    }

    func testCrawlDelay() {
        let robots = RobotsTxt("user-agent: *\ncrawl-delay: 10\n\nuser-agent: slowbot\ncrawl-delay: abc\ndisallow: /x\n")
        XCTAssertEqual(robots.crawlDelay(userAgent: bot), 10)
        XCTAssertNil(robots.crawlDelay(userAgent: "slowbot"), "unreadable values are ignored")
        XCTAssertNil(RobotsTxt("user-agent: *\ncrawl-delay: -3").crawlDelay(userAgent: bot))
    }

    func testPercentEncodingIsNormalized() {
        let robots = RobotsTxt("user-agent: *\ndisallow: /%7ejoe/\ndisallow: /café\ndisallow: /a%2fb\ndisallow: /sp ace")
        XCTAssertFalse(allowed(robots, "/~joe/index.html"), "%7E is ~, an unreserved character")
        XCTAssertFalse(allowed(robots, "/caf%C3%A9/menu"), "UTF-8 in the rule matches the encoded URL")
        XCTAssertFalse(allowed(robots, "/caf%c3%a9"), "hex case does not matter")
        XCTAssertFalse(allowed(robots, "/a%2Fb"))
        XCTAssertTrue(allowed(robots, "/a/b"), "an encoded slash is not a slash")
        XCTAssertFalse(allowed(robots, "/sp%20ace"))
    }

    func testSitemapsAreGlobal() {
        let robots = RobotsTxt("""
        Sitemap: https://example.com/sitemap.xml
        user-agent: somebot
        disallow: /x
        sitemap: http://cdn.example.com/sitemap-2.xml.gz   # comment
        Sitemap: /relative.xml
        Sitemap: ftp://example.com/sitemap.xml
        Sitemap: https://example.com/sitemap.xml
        """)
        XCTAssertEqual(robots.sitemaps, [url("https://example.com/sitemap.xml"), url("http://cdn.example.com/sitemap-2.xml.gz")])
    }

    func testEmptyGarbageAndOversizedFiles() {
        for text in ["", "\n\n", "<html><body>Not found</body></html>", "\u{0}\u{1}\u{FFFD}binary:\u{7F}", "disallow: /"] {
            let robots = RobotsTxt(text)
            XCTAssertTrue(allowed(robots, "/anything"), "\(text.debugDescription) allows everything")
            XCTAssertTrue(robots.sitemaps.isEmpty)
        }
        XCTAssertTrue(allowed(RobotsTxt.allowAll, "/admin"))
        let bom = RobotsTxt(data: Data([0xEF, 0xBB, 0xBF]) + Data("User-agent: *\nDisallow: /x\n".utf8))
        XCTAssertFalse(allowed(bom, "/x"), "a byte order mark does not hide the first line")
        let padding = "# " + String(repeating: "x", count: RobotsTxt.maxSize) + "\n"
        let late = RobotsTxt("user-agent: *\ndisallow: /early\n" + padding + "disallow: /late\n")
        XCTAssertFalse(allowed(late, "/early"))
        XCTAssertTrue(allowed(late, "/late"), "rules past 500 KiB are ignored")
    }

    func testPathologicalWildcardsStayFast() {
        let pattern = String(repeating: "*a", count: 500) + "$"
        let robots = RobotsTxt("user-agent: *\ndisallow: /\(pattern)")
        let start = Date()
        XCTAssertTrue(allowed(robots, "/" + String(repeating: "a", count: 2_000) + "b"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }
}
