import Foundation

/// Memory figures for the tests that bound a child process's growth (leak checks without a sanitizer).
enum ProcessMemory {
    /// The resident set, in bytes (Linux: the second field of /proc/self/statm, in pages of 4 KiB).
    static func residentBytes() -> Int {
        let fields = ((try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "").split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * 4_096 : 0
    }

    /// The number a child printed on a line `"<marker> <bytes>"`.
    static func reported(_ marker: String, in output: String) -> Int? {
        output.split(separator: "\n").first { $0.hasPrefix(marker + " ") }.flatMap { Int($0.split(separator: " ")[1]) }
    }

    /// Under AddressSanitizer freed memory stays in its quarantine (the process grows regardless; its leak checker
    /// reports real leaks at the child's exit instead).
    static var underAddressSanitizer: Bool { dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil }
}
