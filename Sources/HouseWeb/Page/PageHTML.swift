/// The page's HTML: a shell the script fills from `/api/state` and the live events, and the login
/// form. Every dynamic text is escaped; no inline script or style (the Content-Security-Policy
/// forbids them).
enum PageHTML {
    static func page(house: String, csrf: String, user: String?) -> String {
        let h = SVG.escape(house)
        let logout = user.map { u in
            #"<form method="post" action="/logout" id="logout"><span class="user">\#(SVG.escape(u))</span> <button type="submit">Log out</button></form>"#
        } ?? ""
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="csrf-token" content="\(SVG.escape(csrf))">
        <title>\(h): housectl</title>
        <link rel="stylesheet" href="/app.css">
        </head>
        <body>
        <header>
          <h1>\(h)</h1>
          <span id="house-mode" class="badge">…</span>
          <span id="live" class="live" title="live updates">offline</span>
          \(logout)
        </header>
        <nav>
          <a href="#house" data-tab="house" class="tab">House</a>
          <a href="#say" data-tab="say" class="tab">Say</a>
          <a href="#today" data-tab="today" class="tab">Today</a>
          <a href="#history" data-tab="history" class="tab">History</a>
          <a href="#suggestions" data-tab="suggestions" class="tab">Suggestions</a>
        </nav>
        <main>
          <div id="ask" class="ask" hidden>
            <p id="ask-text"></p>
            <div id="ask-choices" class="choices"></div>
          </div>
          <p id="notice" class="notice" hidden></p>
          <section id="house-section" data-section="house">
            <div id="modes" class="modes"></div>
            <div id="nodes" class="nodes"></div>
            <div id="rooms" class="rooms"><p class="muted">Loading the house…</p></div>
            <div id="homekit" class="homekit" hidden></div>
          </section>
          <section id="say-section" data-section="say" hidden>
            <form id="say-form" class="say">
              <input id="say-text" name="text" type="text" autocomplete="off" placeholder="Turn off the kitchen light" aria-label="What to do" maxlength="500">
              <button type="submit">Say</button>
            </form>
            <p class="muted">The same phrases as <code>housectl say</code>: "good night house", "set the blinds to 40%", "is the garage door open".</p>
            <div id="say-log" class="say-log"></div>
          </section>
          <section id="today-section" data-section="today" hidden>
            <div class="day-picker">
              <button type="button" id="day-prev" aria-label="The day before">‹</button>
              <input type="date" id="day" aria-label="Day">
              <button type="button" id="day-next" aria-label="The day after">›</button>
              <button type="button" id="day-today">Today</button>
            </div>
            <div id="day-picture" class="picture"></div>
            <p class="muted">Blue: when a shortcut is relevant. Orange: a planned run and its random delay. Green: what ran. Dotted: a habit the house suggests a routine for. Below: the modes over the day.</p>
          </section>
          <section id="history-section" data-section="history" hidden>
            <h2>Latest</h2>
            <div class="table-wrap"><table id="history-table"><thead><tr><th>When</th><th>Who</th><th>What</th><th>Answer</th></tr></thead><tbody></tbody></table></div>
            <h2>Energy per day</h2>
            <div id="energy-chart" class="picture"></div>
          </section>
          <section id="suggestions-section" data-section="suggestions" hidden>
            <p class="muted">What the house noticed people do at about the same time, together or for about as long, with the evidence. Nothing is done until a suggestion is accepted; a dismissed one is not offered again while the habit stays the same.</p>
            <p id="suggestions-note" class="notice" hidden></p>
            <div id="suggestions" class="suggestions"><p class="muted">Loading the suggestions…</p></div>
          </section>
        </main>
        <script src="/app.js"></script>
        </body>
        </html>
        """
    }

    static func login(house: String, message: String?) -> (String) -> String {
        { token in
            """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Log in: \(SVG.escape(house))</title>
            <link rel="stylesheet" href="/app.css">
            </head>
            <body class="login">
            <form method="post" action="/login" class="login-form">
              <h1>\(SVG.escape(house))</h1>
              \(message.map { #"<p class="error" id="login-error">\#(SVG.escape($0))</p>"# } ?? "")
              <label>User <input name="user" autocomplete="username" required></label>
              <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
              <input type="hidden" name="token" value="\(SVG.escape(token))">
              <button type="submit">Log in</button>
            </form>
            </body>
            </html>
            """
        }
    }
}
