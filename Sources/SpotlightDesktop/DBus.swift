import CSystemd
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An error a D-Bus method answers with: a D-Bus error name and a message.
public struct DBusError: Error, CustomStringConvertible, Sendable {
    public var name: String
    public var message: String

    public init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// `org.freedesktop.DBus.Error.InvalidArgs`.
    public static func invalidArgs(_ message: String) -> DBusError {
        DBusError("org.freedesktop.DBus.Error.InvalidArgs", message)
    }

    /// `org.freedesktop.DBus.Error.Failed`.
    public static func failed(_ message: String) -> DBusError {
        DBusError("org.freedesktop.DBus.Error.Failed", message)
    }

    public var description: String { "\(name): \(message)" }
}

/// The arguments of a method call, read in order.
struct DBusReader {
    let message: OpaquePointer

    /// A `s`.
    func string() throws -> String {
        var pointer: UnsafePointer<CChar>?
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &pointer), "a string (s)")
        guard let pointer else { throw DBusError.invalidArgs("expected a string") }
        return String(cString: pointer)
    }

    /// A `u`.
    func uint32() throws -> UInt32 {
        var value: UInt32 = 0
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &value), "an unsigned integer (u)")
        return value
    }

    /// An `as`.
    func strings() throws -> [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        try check(sd_bus_message_read_strv(message, &list), "an array of strings (as)")
        guard let list else { return [] }
        defer {
            var i = 0
            while let item = list[i] { free(item); i += 1 }
            free(list)
        }
        var result: [String] = []
        var i = 0
        while let item = list[i] {
            result.append(String(cString: item))
            i += 1
        }
        return result
    }

    private func check(_ status: Int32, _ what: String) throws {
        // sd-bus answers 0 at the end of the arguments, and -ENXIO for an argument of another type.
        if status <= 0 { throw DBusError.invalidArgs("the method expects \(what) here") }
    }
}

/// A method return being written: basic values and containers, each with its D-Bus type.
struct DBusWriter {
    let message: OpaquePointer

    func string(_ value: String) throws {
        // D-Bus strings cannot hold NUL.
        let clean = value.contains("\0") ? value.replacingOccurrences(of: "\0", with: "") : value
        try clean.withCString { try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0)) }
    }

    func int32(_ value: Int32) throws {
        var value = value
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "i")), &value))
    }

    func double(_ value: Double) throws {
        var value = value.isFinite ? value : 0
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "d")), &value))
    }

    func strings(_ values: [String]) throws {
        try container("a", "s") { for value in values { try string(value) } }
    }

    /// An array (`a`), a structure (`r`), a dictionary entry (`e`) or a variant (`v`) with the given contents.
    func container(_ kind: Character, _ contents: String, _ body: () throws -> Void) throws {
        try contents.withCString { try check(sd_bus_message_open_container(message, CChar(kind.asciiValue!), $0)) }
        try body()
        try check(sd_bus_message_close_container(message))
    }

    /// A string-keyed dictionary of variants (`a{sv}`) holding strings and string arrays.
    func properties(_ values: [(key: String, value: PropertyValue)]) throws {
        try container("a", "{sv}") {
            for (key, value) in values {
                try container("e", "sv") {
                    try string(key)
                    switch value {
                    case .string(let s): try container("v", "s") { try string(s) }
                    case .strings(let list): try container("v", "as") { try strings(list) }
                    }
                }
            }
        }
    }

    enum PropertyValue {
        case string(String)
        case strings([String])
    }

    private func check(_ status: Int32) throws {
        if status < 0 { throw DBusError.failed("cannot write the reply (\(String(cString: strerror(-status))))") }
    }
}

/// One method of an exported interface: what it reads and what it writes.
struct DBusMethod {
    var name: String
    /// The introspection arguments: (name, type, direction "in"/"out").
    var arguments: [(name: String, type: String, direction: String)]
    var handler: (DBusReader, DBusWriter) throws -> Void
}

/// An interface exported at an object path.
struct DBusInterface {
    var name: String
    var methods: [DBusMethod]

    var introspection: String {
        var xml = "  <interface name=\"\(name)\">\n"
        for method in methods {
            xml += "    <method name=\"\(method.name)\">\n"
            for argument in method.arguments {
                xml += "      <arg type=\"\(argument.type)\" name=\"\(argument.name)\" direction=\"\(argument.direction)\"/>\n"
            }
            xml += "    </method>\n"
        }
        return xml + "  </interface>\n"
    }
}

/// A connection to a message bus through systemd's sd-bus, with the objects this process exports on it.
///
/// Not thread-safe, as sd-bus is not: create it, export objects and `run()` it on one thread. Method handlers run
/// on that thread, one at a time.
final class DBusConnection {
    private var bus: OpaquePointer?
    private var objects: [ExportedObject] = []

    /// Connects to the user's session bus (`$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    init() throws {
        var bus: OpaquePointer?
        let status = sd_bus_open_user(&bus)
        guard status >= 0, let bus else {
            throw DBusError.failed("cannot connect to the session bus (\(String(cString: strerror(-status))));"
                + " is a desktop session running? (DBUS_SESSION_BUS_ADDRESS)")
        }
        self.bus = bus
    }

    deinit {
        for object in objects { sd_bus_slot_unref(object.slot) }
        sd_bus_flush_close_unref(bus)
    }

    /// Takes a well-known name (`org.openspotlight.SearchProvider`); fails when another process has it.
    func requestName(_ name: String) throws {
        let status = sd_bus_request_name(bus, name, 0)
        if status < 0 {
            throw DBusError.failed(status == -EEXIST
                ? "\(name) is already taken on the session bus: another provider is running"
                : "cannot take the name \(name) (\(String(cString: strerror(-status))))")
        }
    }

    /// Answers method calls to `path` with these interfaces (and `org.freedesktop.DBus.Introspectable`).
    func export(path: String, interfaces: [DBusInterface]) throws {
        let object = ExportedObject(interfaces: interfaces)
        var slot: OpaquePointer?
        let status = sd_bus_add_object(bus, &slot, path, dispatchMethodCall, Unmanaged.passUnretained(object).toOpaque())
        guard status >= 0 else {
            throw DBusError.failed("cannot export \(path) (\(String(cString: strerror(-status))))")
        }
        object.slot = slot
        objects.append(object)
    }

    /// Processes messages until `shouldStop` says so (checked at least every `checkInterval`) or the bus goes away.
    ///
    /// - Returns: normally when stopped; throws when the bus connection fails.
    func run(checkInterval: TimeInterval = 0.5, shouldStop: () -> Bool) throws {
        while !shouldStop() {
            let processed = sd_bus_process(bus, nil)
            if processed < 0 {
                // The bus went away (the session ended): nothing more to answer.
                if processed == -ECONNRESET || processed == -ENOTCONN || processed == -EPIPE { return }
                throw DBusError.failed("the bus connection failed (\(String(cString: strerror(-processed))))")
            }
            if processed > 0 { continue }
            let waited = sd_bus_wait(bus, UInt64(checkInterval * 1_000_000))
            if waited < 0 && waited != -EINTR {
                if waited == -ECONNRESET || waited == -ENOTCONN { return }
                throw DBusError.failed("waiting on the bus failed (\(String(cString: strerror(-waited))))")
            }
        }
    }
}

/// An object's interfaces, reached from sd-bus's C callback through its user data.
private final class ExportedObject {
    let interfaces: [DBusInterface]
    var slot: OpaquePointer?

    init(interfaces: [DBusInterface]) {
        self.interfaces = interfaces
    }

    var introspectionXML: String {
        """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg type="s" name="xml_data" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId"><arg type="s" name="machine_uuid" direction="out"/></method>
          </interface>
        \(interfaces.map(\.introspection).joined())</node>

        """
    }

    func handle(_ call: OpaquePointer, error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        guard let memberName = sd_bus_message_get_member(call) else { return 0 }
        let member = String(cString: memberName)
        let interface = sd_bus_message_get_interface(call).map { String(cString: $0) }
        let method: DBusMethod?
        if interface == "org.freedesktop.DBus.Introspectable" && member == "Introspect" {
            let xml = introspectionXML
            method = DBusMethod(name: member, arguments: []) { _, writer in try writer.string(xml) }
        } else {
            // A call without an interface names the method alone (allowed by the D-Bus specification).
            let candidates = interface == nil ? interfaces : interfaces.filter { $0.name == interface }
            method = candidates.lazy.flatMap(\.methods).first { $0.name == member }
        }
        guard let method else { return 0 }  // sd-bus answers UnknownMethod
        let expected = method.arguments.filter { $0.direction == "in" }.map(\.type).joined()
        if sd_bus_message_has_signature(call, expected) <= 0 {
            let given = sd_bus_message_get_signature(call, 1).map { String(cString: $0) } ?? ""
            return sd_bus_error_set(error, "org.freedesktop.DBus.Error.InvalidArgs",
                                    "\(member) takes (\(expected)), not (\(given))")
        }
        var reply: OpaquePointer?
        let created = sd_bus_message_new_method_return(call, &reply)
        guard created >= 0, let reply else { return created }
        defer { sd_bus_message_unref(reply) }
        do {
            try method.handler(DBusReader(message: call), DBusWriter(message: reply))
        } catch let failure as DBusError {
            return sd_bus_error_set(error, failure.name, failure.message)
        } catch let failure {
            return sd_bus_error_set(error, "org.freedesktop.DBus.Error.Failed", "\(failure)")
        }
        let sent = sd_bus_send(nil, reply, nil)
        return sent < 0 ? sent : 1
    }
}

private let dispatchMethodCall: sd_bus_message_handler_t = { message, userdata, error in
    guard let message, let userdata else { return 0 }
    return Unmanaged<ExportedObject>.fromOpaque(userdata).takeUnretainedValue().handle(message, error: error)
}
