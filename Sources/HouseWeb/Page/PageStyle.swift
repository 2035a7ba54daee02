/// The page's style: one column on a phone, a grid of rooms on a wider screen.
enum PageStyle {
    static let text = """
    :root { --fg: #1d1d1f; --muted: #666; --bg: #f6f6f4; --card: #fff; --accent: #1d6fd8; --on: #f4b400; --line: #ddd; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 16px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
    header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .75rem 1rem; background: #24313f; color: #fff; }
    header h1 { font-size: 1.2rem; margin: 0; flex: 1 1 auto; }
    .badge { background: rgba(255,255,255,.15); border-radius: 1rem; padding: .1rem .6rem; font-size: .85rem; }
    .live { font-size: .8rem; opacity: .7; }
    .live.on::before { content: "● "; color: #5ad65a; }
    #logout { display: flex; gap: .4rem; align-items: center; font-size: .85rem; }
    nav { display: flex; background: #fff; border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 2; }
    nav a { flex: 1; text-align: center; padding: .7rem .25rem; color: var(--fg); text-decoration: none; border-bottom: 3px solid transparent; }
    nav a.current { border-bottom-color: var(--accent); font-weight: 600; }
    main { padding: 1rem; max-width: 1200px; margin: 0 auto; }
    .rooms { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); }
    .room { background: var(--card); border-radius: .75rem; padding: .75rem 1rem; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
    .room h2 { font-size: 1.05rem; margin: 0 0 .5rem; display: flex; gap: .5rem; align-items: baseline; flex-wrap: wrap; }
    .room h2 small { color: var(--muted); font-weight: normal; font-size: .8rem; }
    .room-mode { margin-left: auto; font-size: .75rem; font-weight: normal; background: #eef3fb; border-radius: 1rem; padding: 0 .5rem; }
    .device { display: grid; grid-template-columns: 1fr auto; gap: .2rem .5rem; padding: .45rem 0; border-top: 1px solid #f0f0f0; align-items: center; }
    .device .value { color: var(--muted); font-size: .9rem; text-align: right; }
    .device .controls { grid-column: 1 / -1; display: flex; gap: .4rem; flex-wrap: wrap; align-items: center; }
    .device .controls:empty { display: none; }
    .device.is-on .name { font-weight: 600; }
    button { font: inherit; border: 1px solid #c9c9c9; background: #fff; border-radius: .5rem; padding: .45rem .9rem; cursor: pointer; min-height: 2.5rem; }
    button:hover { border-color: var(--accent); }
    button.switch { min-width: 4.5rem; }
    button.switch.on { background: var(--on); border-color: #d49b00; font-weight: 600; }
    input.position { flex: 1 1 8rem; }
    .modes, .nodes { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin-bottom: .75rem; }
    .modes .label { color: var(--muted); font-size: .9rem; }
    button.mode.current { background: #24313f; color: #fff; }
    .node { font-size: .8rem; border-radius: 1rem; padding: .1rem .6rem; background: #eee; }
    .node.up { background: #e3f6e3; } .node.down { background: #fde2e2; }
    .ask { background: #fff7d6; border: 1px solid #f0d77a; border-radius: .75rem; padding: .75rem 1rem; margin-bottom: 1rem; }
    .ask p { margin: 0 0 .5rem; font-weight: 600; }
    .choices { display: flex; flex-wrap: wrap; gap: .5rem; }
    .notice { background: #eef3fb; border-radius: .5rem; padding: .5rem .75rem; }
    .say { display: flex; gap: .5rem; }
    .say input { flex: 1; font: inherit; padding: .6rem; border-radius: .5rem; border: 1px solid #c9c9c9; min-width: 0; }
    .say-log .line { margin: .3rem 0; }
    .say-log .house { color: #24313f; }
    .muted { color: var(--muted); font-size: .9rem; }
    .day-picker { display: flex; gap: .4rem; align-items: center; margin-bottom: .5rem; flex-wrap: wrap; }
    .day-picker input { font: inherit; padding: .4rem; }
    .picture { background: #fff; border-radius: .75rem; padding: .5rem; overflow-x: auto; }
    .picture svg { min-width: 640px; display: block; }
    .table-wrap { overflow-x: auto; }
    table { border-collapse: collapse; width: 100%; background: #fff; font-size: .9rem; }
    th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #eee; vertical-align: top; }
    tr.outcome-failed td, tr.outcome-refused td, tr.outcome-unsupported td { color: #a40000; }
    .error { color: #a40000; }
    .homekit { background: var(--card); border-radius: .75rem; padding: .75rem 1rem; margin-top: 1rem; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
    .homekit h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
    .homekit .qr svg { width: 180px; height: 180px; display: block; }
    .homekit .setup-code { font: 600 1.5rem ui-monospace, monospace; letter-spacing: .1em; margin: .5rem 0 0; }
    .suggestions { display: grid; gap: .75rem; }
    .suggestion { background: #fff; border-radius: .75rem; padding: .75rem 1rem; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
    .suggestion .text { margin: 0 0 .3rem; }
    .suggestion .evidence { margin: 0 0 .5rem; }
    .suggestion.answered { opacity: .75; }
    .suggestion .answer.done { color: #1b6b3a; }
    body.login { display: grid; place-items: center; min-height: 100vh; }
    .login-form { background: #fff; padding: 1.5rem; border-radius: .75rem; display: grid; gap: .75rem; width: min(22rem, 92vw); box-shadow: 0 1px 4px rgba(0,0,0,.1); }
    .login-form input { display: block; width: 100%; font: inherit; padding: .5rem; margin-top: .2rem; }
    [hidden] { display: none !important; }
    """
}
