import ArgumentParser
import Foundation
import ObjectGraph

/// `docutil predicate FORMAT`: parses a predicate and prints its canonical form or its parse tree.
struct PredicateCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    static let configuration = CommandConfiguration(
        commandName: "predicate",
        abstract: "Parse a predicate in Apple's format-string syntax and print its canonical form.",
        discussion: """
            The first line of text output is the canonical form, which parses back to the same predicate. \
            --var NAME=VALUE substitutes $NAME; VALUE is read as a predicate literal: 70 is a number, 'x' a \
            string, YES a boolean, {1, 2} a list, CAST(0, "NSDate") a date. JSON output is the parse tree. \
            A syntax error is reported on standard error with its offset and exits with status 65.
            """)

    @Argument(help: "The predicate, e.g. \"age > 30 AND name BEGINSWITH[c] 'a'\".")
    var predicate: String

    @Option(
        name: .customLong("var"), parsing: .unconditionalSingleValue,
        help: "A substitution variable, NAME=VALUE (repeatable).")
    var variables: [String] = []

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    func run() throws {
        let values = try VariableArguments.parse(variables)
        let parsed: ObjectPredicate
        do {
            parsed = try ObjectPredicate(format: predicate)
        } catch {
            printError("predicate \(error.description)")
            throw ExitCode(ExitStatus.badData)
        }
        try VariableArguments.checkUsed(values, by: parsed.variableNames)
        let result = values.isEmpty ? parsed : parsed.substitutingAvailable(values)
        try reportingErrors {
            switch format {
            case .text:
                try OutputFile.standardOutput.write(TerminalText.safe(result.format) + "\n")
            case .json:
                let json = JSONValue.object([
                    ("formatVersion", .int(1)),
                    ("predicate", .string(result.format)),
                    ("variables", .array(result.variableNames.map { .string($0) })),
                    ("tree", PredicateJSON.predicate(result)),
                ])
                try OutputFile.standardOutput.write(json.serialized() + "\n")
            }
        }
    }
}

/// Reads `--var NAME=VALUE` options; each value is a predicate literal.
enum VariableArguments {
    static func parse(_ arguments: [String]) throws -> [String: PredicateConstant] {
        var values: [String: PredicateConstant] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw ValidationError("--var '\(argument)' is not NAME=VALUE")
            }
            var name = String(argument[..<equals])
            if name.hasPrefix("$") { name.removeFirst() }
            let text = String(argument[argument.index(after: equals)...])
            guard let expression = try? ObjectExpression(format: text), case .constant(let constant) = expression else {
                throw ValidationError(
                    "--var \(name): '\(text)' is not a literal (use 70, 'text', YES, NO, nil, {1, 2} or CAST(…))")
            }
            guard values.updateValue(constant, forKey: name) == nil else {
                throw ValidationError("--var \(name) is given twice")
            }
        }
        return values
    }

    /// Refuses a value for a variable the predicate does not have (a typo would otherwise be ignored, and the
    /// predicate's own variable reported missing or left as it is).
    /// - Parameters:
    ///   - values: the values given.
    ///   - variables: the predicate's variable names.
    static func checkUsed(_ values: [String: PredicateConstant], by variables: [String]) throws {
        for name in values.keys.sorted() where !variables.contains(name) {
            let known =
                variables.isEmpty ? "it has none" : "it has: " + variables.map { "$" + $0 }.joined(separator: ", ")
            throw ValidationError("--var \(name): the predicate has no variable $\(name) (\(known))")
        }
    }
}
