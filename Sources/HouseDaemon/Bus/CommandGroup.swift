/// The commands the bus's consumer carries out before it commits what they wrote
/// (`CommandBusService`): when a group takes one more, and when it waits a little for it.
///
/// A group somebody waits on (a command whose answer goes out after the commit) ends soon: at
/// once when its command came alone, else after `answeredLimit` more commands at most. A group
/// nobody waits on (plain `set` commands, the house's own notes) goes on while commands keep
/// coming within the linger, up to `unansweredLimit`: its writes are committed by the state
/// recorder within its interval anyway, and a stream of commands does not end a group (and
/// commit, and wake the commit thread) every few hundred of them.
struct CommandGroup {
    /// Commands carried out in the group.
    private(set) var count = 0
    /// Commands carried out since the first one whose answer somebody waits for (nil: none yet).
    private(set) var sinceAnswered: Int?

    /// The most commands after the first answered one: their answers wait for the commit.
    let answeredLimit: Int
    /// The most commands of a group nobody waits on (what the commit thread writes at once).
    let unansweredLimit: Int

    init(answeredLimit: Int, unansweredLimit: Int) {
        self.answeredLimit = answeredLimit
        self.unansweredLimit = unansweredLimit
    }

    /// Counts a command carried out; `answered`: somebody waits for its answer.
    mutating func carried(answered: Bool) {
        count += 1
        if let n = sinceAnswered {
            sinceAnswered = n + 1
        } else if answered {
            sinceAnswered = 1
        }
    }

    /// Whether the group takes another command.
    var takesMore: Bool {
        if let sinceAnswered { return sinceAnswered < answeredLimit }
        return count < unansweredLimit
    }

    /// Whether the group waits for the next command (the linger) before it ends: under load
    /// (`underLoad`: the last group held more than one command), once it holds more than one,
    /// or while nobody waits for its commit. A lone answered command is committed at once.
    func lingers(underLoad: Bool) -> Bool {
        underLoad || count > 1 || sinceAnswered == nil
    }
}
