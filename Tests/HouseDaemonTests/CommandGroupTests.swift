import Testing
@testable import HouseDaemon

/// How long the bus's consumer goes on with a group before it commits it.
@Suite struct CommandGroupTests {
    /// A command alone whose answer somebody waits for is committed at once (no linger); one
    /// nobody waits for lingers for company.
    @Test func aLoneAnsweredCommandIsCommittedAtOnceAndAnUnansweredOneLingers() {
        var answered = CommandGroup(answeredLimit: 4, unansweredLimit: 16)
        answered.carried(answered: true)
        #expect(!answered.lingers(underLoad: false))
        #expect(answered.lingers(underLoad: true), "under load it lingers all the same")
        var unanswered = CommandGroup(answeredLimit: 4, unansweredLimit: 16)
        unanswered.carried(answered: false)
        #expect(unanswered.lingers(underLoad: false))
    }

    /// A group nobody waits on goes on up to its own limit; once a command's answer waits, the
    /// group ends within `answeredLimit` commands of it.
    @Test func anAnswerWaitingEndsTheGroupSoon() {
        var group = CommandGroup(answeredLimit: 4, unansweredLimit: 16)
        var taken = 0
        while group.takesMore {
            group.carried(answered: false)
            taken += 1
        }
        #expect(taken == 16)
        #expect(group.lingers(underLoad: false))

        group = CommandGroup(answeredLimit: 4, unansweredLimit: 16)
        for _ in 0..<10 { group.carried(answered: false) }
        group.carried(answered: true)
        taken = 0
        while group.takesMore {
            group.carried(answered: false)
            taken += 1
        }
        #expect(taken == 3, "the answered command and three more")
        #expect(group.count == 14)
    }
}
