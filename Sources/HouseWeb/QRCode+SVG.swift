import HouseHomeKit

extension QRCode {
    /// The code as SVG: its dark modules as one path on white, with the quiet zone of four modules
    /// a reader expects, scaled to whatever size the page gives it.
    func svg(title: String) -> String {
        let quiet = 4, side = size + 2 * quiet
        var path = ""
        for row in 0..<size {
            for column in 0..<size where self[row, column] {
                path += "M\(column + quiet) \(row + quiet)h1v1h-1z"
            }
        }
        return #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(side) \#(side)" class="qr" data-modules="\#(size)" role="img" shape-rendering="crispEdges">"#
            + "<title>\(SVG.escape(title))</title>"
            + #"<rect width="\#(side)" height="\#(side)" fill="\#u{23}fff"/><path d="\#(path)" fill="\#u{23}000"/></svg>"#
    }
}
