import ArgumentParser
import Documents
import Foundation
import ModelFiles
import ObjectGraph

/// The documented exit statuses (sysexits.h), and the mapping from library errors to them.
enum ExitStatus {
    static let problemsFound: Int32 = 1
    static let usage: Int32 = 64
    static let badData: Int32 = 65
    static let noInput: Int32 = 66
    static let unsupported: Int32 = 69
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74

    static func code(for error: any Error) -> Int32 {
        switch error {
        case let e as ModelFileError:
            switch e.code {
            case .notFound: noInput
            case .unsupported: unsupported
            case .io: ioError
            case .unrecognizedFormat, .malformed, .invalidModel: badData
            }
        case let e as DocumentError: e.code.rawValue
        // A predicate, template or variable that cannot be used is bad input, whatever the reason.
        case is ObjectPredicateError: badData
        case let e as ContextError:
            switch e {
            case .store(let s):
                switch s.code {
                case .notFound: noInput
                case .unsupported: unsupported
                case .io, .readOnly: ioError
                default: badData
                }
            default: badData
            }
        case is StoreError: badData
        default: DocumentError.exitStatus(for: error) ?? ioError
        }
    }
}

/// Writes a diagnostic to standard error. Each line is cut to ``maximumLineLength`` characters (the middle left
/// out), so that no input echoed in a message can flood a terminal or a log.
func printError(_ message: String) {
    // Each line cut to a length and its control characters escaped: a message quotes names and values from files
    // and arguments, which may hold a terminal escape.
    let lines = message.split(separator: "\n", omittingEmptySubsequences: false).map {
        Diagnostics.quote(String($0), limit: maximumLineLength)
    }
    OutputFile.message("docutil: \(lines.joined(separator: "\n"))\n")
}

/// The longest line a diagnostic prints.
let maximumLineLength = 600

/// Runs a command body, turning library errors into a message on stderr and the documented exit status.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch let usage as ValidationError {
        throw usage
    } catch {
        printError(String(describing: error))
        throw ExitCode(ExitStatus.code(for: error))
    }
}
