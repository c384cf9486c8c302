import Foundation

// The build tool of the EmbedOpenAPIDocument plugin: `RelinkEmbed <input> <output.swift> <Type> <member>` writes
// `extension <Type> { static let <member> = "…" }` holding the input file's text exactly. Every scalar is kept as it
// is, except the few a one-line string literal cannot hold, which are escaped: the literal's UTF-8 is the file's bytes.

let arguments = CommandLine.arguments
guard arguments.count == 5 else {
    FileHandle.standardError.write(Data("usage: RelinkEmbed <input> <output.swift> <Type> <member>\n".utf8))
    exit(2)
}
let (input, output, typeName, member) = (arguments[1], arguments[2], arguments[3], arguments[4])
let bytes = try Data(contentsOf: URL(fileURLWithPath: input))
// Refused rather than repaired: a replacement character would make the served bytes differ from the file's.
guard let text = String(data: bytes, encoding: .utf8), Data(text.utf8) == bytes else {
    FileHandle.standardError.write(Data("\(input): not UTF-8\n".utf8))
    exit(1)
}

var literal = "\""
for scalar in text.unicodeScalars {
    switch scalar {
    case "\\": literal += "\\\\"
    case "\"": literal += "\\\""
    case "\n": literal += "\\n"
    case "\r": literal += "\\r"
    case "\t": literal += "\\t"
    case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        literal += "\\u{\(String(scalar.value, radix: 16))}"
    default: literal.unicodeScalars.append(scalar)
    }
}
literal += "\""

let source = """
    // Generated at build time by the EmbedOpenAPIDocument plugin from \(URL(fileURLWithPath: input).lastPathComponent): edit that file.
    extension \(typeName) {
        static let \(member) = \(literal)
    }

    """
try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
