import Foundation
import HouseCore

/// Energy per metered device per day as grouped bars, one group per day, drawn on the server.
public struct EnergyChart: Sendable {
    public let days: [HouseEngine.EnergyDay]
    public let configuration: HouseConfiguration

    public init(days: [HouseEngine.EnergyDay], configuration: HouseConfiguration) {
        self.days = days
        self.configuration = configuration
    }

    public var svg: String {
        let devices = configuration.devices.filter { ($0.watts ?? 0) > 0 }
        let width = 960.0, top = 16.0, bottom = 36.0, left = 48.0, legend = 18.0 * Double((devices.count + 3) / 4)
        let plot = 180.0
        let height = top + plot + bottom + legend
        let peak = max(0.1, days.flatMap { $0.kWh.values }.max() ?? 0)
        let scale = Self.niceCeiling(peak)
        let groupWidth = (width - left - 8) / Double(max(1, days.count))
        let barWidth = max(2, (groupWidth - 8) / Double(max(1, devices.count)))
        func num(_ v: Double) -> String { String(format: "%.1f", v) }
        var out = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(Int(width)) \#(Int(height))" width="100%" role="img" class="energy-chart">"#
        out += "<title>Energy per device per day (kWh)</title>"
        for step in 0...4 {
            let v = scale * Double(step) / 4
            let y = top + plot - plot * Double(step) / 4
            out += #"<line x1="\#(num(left))" y1="\#(num(y))" x2="\#(num(width - 8))" y2="\#(num(y))" stroke="\#u{23}e2e2e2"/>"#
            out += #"<text x="\#(num(left - 4))" y="\#(num(y + 4))" font-size="10" text-anchor="end" fill="\#u{23}555">\#(Self.format(v))</text>"#
        }
        for (i, day) in days.enumerated() {
            let gx = left + Double(i) * groupWidth + 4
            for (j, device) in devices.enumerated() {
                let kWh = day.kWh[device.id] ?? 0
                let h = plot * kWh / scale
                let bx = gx + Double(j) * barWidth
                out += #"<rect class="bar" data-device="\#(SVG.escape(device.id.rawValue))" data-day="\#(day.day)" x="\#(num(bx))" y="\#(num(top + plot - h))" width="\#(num(max(1, barWidth - 1)))" height="\#(num(max(0, h)))" fill="\#(SVG.color(for: device.id.rawValue))">"#
                out += "<title>\(SVG.escape("\(device.id) on \(day.day): \(Self.format(kWh)) kWh"))</title></rect>"
            }
            out += #"<text x="\#(num(gx + groupWidth / 2 - 4))" y="\#(num(top + plot + 14))" font-size="10" text-anchor="middle" fill="\#u{23}444">\#(SVG.escape(String(day.day.suffix(5))))</text>"#
        }
        for (j, device) in devices.enumerated() {
            let lx = left + Double(j % 4) * 220, ly = top + plot + bottom + Double(j / 4) * 18
            out += #"<rect x="\#(num(lx))" y="\#(num(ly - 9))" width="10" height="10" fill="\#(SVG.color(for: device.id.rawValue))"/>"#
            out += #"<text x="\#(num(lx + 14))" y="\#(num(ly))" font-size="11" fill="\#u{23}222">\#(SVG.escape(SVG.clip(configuration.label(for: device), 30)))</text>"#
        }
        if devices.isEmpty {
            out += #"<text x="\#(num(left + 8))" y="\#(num(top + 20))" font-size="12" fill="\#u{23}555">No device has watts: set watts on a device to count its energy.</text>"#
        }
        return out + "</svg>"
    }

    /// 1, 2 or 5 times a power of ten, at least `v`.
    static func niceCeiling(_ v: Double) -> Double {
        let magnitude = pow(10, floor(log10(v)))
        for m in [1.0, 2, 5, 10] where m * magnitude >= v { return m * magnitude }
        return 10 * magnitude
    }

    static func format(_ v: Double) -> String {
        v == 0 ? "0" : v < 0.1 ? String(format: "%.3f", v) : v < 10 ? String(format: "%.2f", v) : String(format: "%.0f", v)
    }
}
