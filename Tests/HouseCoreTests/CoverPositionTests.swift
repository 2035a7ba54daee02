import Foundation
import HouseCore
import Testing

/// The time-based position of a cover: worked out from its windings' edges, planned into runs,
/// confirmed by a full travel.
@Suite struct CoverPositionTests {
    let motor = CoverMotor(node: "pi-main", upChannel: 1, downChannel: 2, openTime: .seconds(20), closeTime: .seconds(10),
                           endMargin: .seconds(2))
    let t0 = WallInstant(Date(timeIntervalSince1970: 1_795_521_600))

    func at(_ seconds: Double) -> WallInstant { t0.advanced(by: .milliseconds(Int64(seconds * 1000))) }

    @Test func runsMoveThePositionByTheirShareOfTheTravel() {
        var p = CoverPosition(position: 0, assumed: false)
        p.started(.up, at: at(0), motor: motor)
        #expect(p.state(at: at(5), motor: motor) == .opening)
        #expect(p.percent(at: at(5), motor: motor) == 25, "a quarter of the 20 s opening")
        p.stopped(.up, at: at(10), motor: motor)
        #expect(p.position == 50 && p.motion == nil && p.state(at: at(99), motor: motor) == .stopped)
        p.started(.down, at: at(20), motor: motor)
        p.stopped(.down, at: at(22), motor: motor)
        #expect(p.position == 30, "closing is faster: 2 s of 10 s is 20%")
        // An off edge of the other winding, or a second on edge, changes nothing.
        p.stopped(.up, at: at(30), motor: motor)
        p.started(.down, at: at(40), motor: motor)
        p.started(.down, at: at(41), motor: motor)
        #expect(p.motion == CoverPosition.Motion(direction: .down, since: at(40)))
        // A reversal edge stops the motion first.
        p.started(.up, at: at(41), motor: motor)
        #expect(p.position == 20 && p.motion?.direction == .up)
    }

    @Test func aFullTravelConfirmsAnAssumedPositionAndTheEndsClamp() {
        var p = CoverPosition(position: 60, assumed: true)
        p.started(.up, at: at(0), motor: motor)
        p.stopped(.up, at: at(5), motor: motor)
        #expect(p.position == 85 && p.assumed, "a short run confirms nothing")
        p.started(.down, at: at(10), motor: motor)
        p.stopped(.down, at: at(21), motor: motor)
        #expect(p.position == 0 && !p.assumed, "11 s of closing is more than the full 10 s: at the end stop")
        #expect(p.state(at: at(30), motor: motor) == .closed)
    }

    @Test func plansRunForTheirShareAndEndsGetTheMargin() {
        let known = CoverPosition(position: 40, assumed: false)
        #expect(known.plan(toward: 100, at: t0, motor: motor) == .run(.up, for: .seconds(14), target: 100), "60% of 20 s and 2 s")
        #expect(known.plan(toward: 0, at: t0, motor: motor) == .run(.down, for: .seconds(6), target: 0), "40% of 10 s and 2 s")
        #expect(known.plan(toward: 70, at: t0, motor: motor) == .run(.up, for: .seconds(6), target: 70), "no margin part way")
        #expect(known.plan(toward: 40, at: t0, motor: motor) == .stay(at: 40))
        #expect(CoverPosition(position: 100, assumed: false).plan(toward: 100, at: t0, motor: motor) == .stay(at: 100))
        // Assumed: an end is always a full travel and the margin, even from where it "is".
        let assumed = CoverPosition(position: 100, assumed: true)
        #expect(assumed.plan(toward: 100, at: t0, motor: motor) == .run(.up, for: .seconds(22), target: 100))
        #expect(assumed.plan(toward: 0, at: t0, motor: motor) == .run(.down, for: .seconds(12), target: 0))
        // Moving: planned from where it is now; reaching the target while moving is a stop.
        var moving = CoverPosition(position: 0, assumed: false)
        moving.started(.up, at: t0, motor: motor)
        #expect(moving.plan(toward: 50, at: at(4), motor: motor) == .run(.up, for: .seconds(6), target: 50))
        #expect(moving.plan(toward: 20, at: at(4), motor: motor) == .stop)
        #expect(moving.plan(toward: 10, at: at(4), motor: motor) == .run(.down, for: .seconds(1), target: 10))
        #expect(moving.plan(toward: 150, at: at(4), motor: motor) == .run(.up, for: .seconds(18), target: 100), "clamped to 100")
    }

    @Test func theMotorsLimitsAndDefaults() {
        let m = CoverMotor(node: "n", upChannel: 1, downChannel: 2, openTime: .seconds(30))
        #expect(m.closeTime == .seconds(30) && m.endMargin == .seconds(3), "close as open, a tenth as margin")
        #expect(CoverMotor(node: "n", upChannel: 1, downChannel: 2, openTime: .seconds(5)).endMargin == .seconds(1), "at least 1 s")
        #expect(m.maximumRun(.down) == .seconds(33))
        #expect(CoverMotor.windingID(of: "living-shutter", .up) == "living-shutter/up")
        #expect(m.winding(.down) == RelayRef(node: "n", channel: 2))
    }
}
