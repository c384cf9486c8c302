extension QRCode {
    /// The quiet zone the standard asks for around a symbol, in modules.
    static let quietZone = 4

    /// The symbol as a standalone SVG document `size` pixels square, black on white with its quiet zone, one path of
    /// unit squares (crisp at any scale). `title` is text, escaped here.
    func svg(size: Int, title: String) -> String {
        let side = width + 2 * Self.quietZone
        var path = ""
        path.reserveCapacity(width * width * 4)
        for y in 0..<width {
            var x = 0
            while x < width {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                // A run of dark modules is one rectangle.
                var run = 1
                while x + run < width, isDark(x: x + run, y: y) { run += 1 }
                path += "M\(x + Self.quietZone) \(y + Self.quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(size)" height="\(size)" viewBox="0 0 \(side) \(side)" \
            shape-rendering="crispEdges" role="img"><title>\(HTMLEscaper.escape(title))</title>\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }
}
