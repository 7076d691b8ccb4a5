// The live floor page: polls /floor/data.json (casino/floor_page.py) and draws each table
// again, the same markup as casino/templates/floor/floor.html. Every value goes in as
// text (textContent) or a checked same-origin link: nothing from the server is parsed as
// HTML.
(function () {
  "use strict";

  var main = document.getElementById("floor-tables");
  if (!main) return;
  var url = main.getAttribute("data-url");
  var pollMs = parseInt(main.getAttribute("data-poll-ms"), 10) || 2000;
  var updated = document.getElementById("floor-updated");
  var lost = document.getElementById("floor-lost");
  var lostDetail = document.getElementById("floor-lost-detail");
  var signIn = document.getElementById("floor-sign-in");
  var summary = document.getElementById("floor-summary");
  var lastAt = null;
  var signedOut = false;
  // The wait before the next poll: the poll's own, or a 429's Retry-After (the user's
  // budget is spent: polling sooner would only be refused again).
  var nextMs = pollMs;
  // The statistics badges by table id (floor_page.statistics_build): drawn by the page,
  // kept here, polled every minute on their own (they are figures over a day).
  var statisticsUrl = main.getAttribute("data-statistics-url");
  var statisticsMs = parseInt(main.getAttribute("data-statistics-ms"), 10) || 60000;
  var badges = {};
  var lastSnapshot = null;
  try {
    badges = JSON.parse(document.getElementById("floor-badges").textContent) || {};
  } catch (error) {
    badges = {};
  }

  // The words beside each colour (floor_page.DUE_WORDS, HEALTH_WORDS).
  var DUE_WORDS = { ok: "in date", soon: "due soon", overdue: "overdue" };
  var HEALTH_WORDS = { ok: "ok", stale: "stale", down: "down" };

  // Times in the casino's zone, whatever the browser's.
  var format;
  try {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone: main.getAttribute("data-tz") || undefined,
      year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23",
    });
  } catch (error) {
    format = new Intl.DateTimeFormat("en-CA", {
      year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23",
    });
  }

  function parts(iso) {
    var found = {};
    format.formatToParts(new Date(iso)).forEach(function (part) {
      found[part.type] = part.value;
    });
    return found;
  }

  function dateTime(iso) {
    if (!iso) return "";
    var p = parts(iso);
    return p.year + "-" + p.month + "-" + p.day + " " + p.hour + ":" + p.minute;
  }

  function clock(iso) {
    var p = parts(iso);
    return p.hour + ":" + p.minute + ":" + p.second;
  }

  // HH:MM on the snapshot's own day, the date too before it (floor_page._short).
  function short(iso, today) {
    var full = dateTime(iso);
    return full.slice(0, 10) === today ? full.slice(11) : full;
  }

  function agoText(seconds) {
    if (seconds === null || seconds === undefined) return "never heard from";
    var units = [["s", 1, 120], ["min", 60, 7200], ["h", 3600, 172800]];
    for (var i = 0; i < units.length; i++) {
      if (seconds < units[i][2]) return "seen " + Math.floor(seconds / units[i][1]) + " " + units[i][0] + " ago";
    }
    return "seen " + Math.floor(seconds / 86400) + " days ago";
  }

  function plural(n, word) {
    return n + " " + word + (n === 1 ? "" : "s");
  }

  // An element with a class and children (strings become text nodes).
  function el(tag, className) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // Only a path on this site: an admin link never leads elsewhere.
  function link(href, className) {
    var node = el.apply(null, ["a", className].concat([].slice.call(arguments, 2)));
    if (typeof href === "string" && href.charAt(0) === "/" && href.charAt(1) !== "/") {
      node.setAttribute("href", href);
    }
    return node;
  }

  // A class name part from a server value: letters, digits, _ and - only.
  function token(value) {
    return String(value).replace(/[^A-Za-z0-9_-]/g, "");
  }

  function block(className, title, body) {
    return el("section", "block " + className, el("h2", null, title), body);
  }

  // An amount as money, as casino.rules.words.money_text writes it: "-$2,200.00". The
  // snapshot's amounts are decimal strings of two places (floor_page._amount), worked on
  // as text: no float ever touches money.
  function money(amount) {
    var text = String(amount);
    var negative = text.charAt(0) === "-";
    var found = /^(\d+)(?:\.(\d*))?$/.exec(negative ? text.slice(1) : text);
    if (!found) return text;
    var whole = found[1].replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    var cents = ((found[2] || "") + "00").slice(0, 2);
    var zero = /^[0,]*$/.test(whole) && cents === "00";
    return (negative && !zero ? "-" : "") + "$" + whole + "." + cents;
  }

  function list(tag, items, none) {
    var node = el(tag);
    if (!items.length) node.appendChild(el("li", "none", none));
    items.forEach(function (item) { node.appendChild(item); });
    return node;
  }

  function roundBlock(round, today) {
    if (!round) return block("round", "Round in progress", el("p", "none", "None"));
    return block("round", "Round in progress", el("p", "round-current",
      link(round.admin_url, null, "Round " + round.number), " ",
      el("span", "round-status round-" + token(round.status), round.status_display), " ",
      el("span", "quiet", "· " + plural(round.wagers, "wager") + " · " + money(round.wagered) +
        " · opened " + short(round.opened_at, today))));
  }

  // A stuck settlement at the table (floor_page._alert): what, since when, what to do.
  function alertBlock(alert, today) {
    if (!alert) return null;
    var node = el("section", "block settlement-alert alert-" + token(alert.status),
      el("h2", null, "Settlement " + alert.status_display),
      el("p", "alert-what", link(alert.admin_url, null, "Round " + alert.round.number), " ",
        el("span", "alert-error", alert.error)),
      el("p", "quiet alert-when", "since " + short(alert.since, today) + " · sent " +
        plural(alert.sends, "time") + " · failed " + plural(alert.failures, "time")),
      el("p", "alert-guidance", alert.guidance));
    node.setAttribute("role", "alert");
    return node;
  }

  // A round waiting on a device past the setting (floor_page._device_wait): the device,
  // since when, and the ways out the rules allow.
  function waitBlock(table) {
    var wait = table.device_wait;
    if (!wait || !wait.alert) return null;
    var device = wait.device ?
      " " + wait.device.serial + " (" + wait.device.status_display.toLowerCase() + ")" : "";
    var ways = el("ul", "ways-out");
    wait.ways_out.forEach(function (way) {
      ways.appendChild(el("li", "way-" + token(way.way), way.text));
    });
    var round = table.round ? table.round.admin_url : null;
    var node = el("section", "block device-wait-alert",
      el("h2", null, "Waiting on a device"),
      el("p", "alert-what", link(round, null, "Round " + wait.round.number),
        " has waited since " + clock(wait.since) + " for " + wait.step + " from the " +
        wait.kind_display + device + " ", el("span", "quiet", wait.cite)),
      el("p", "alert-guidance", "The rules allow:"),
      ways);
    node.setAttribute("role", "alert");
    return node;
  }

  // Hold out of band, dice that look loaded: each links to the chart behind it.
  function statisticsBlock(table) {
    var found = badges[String(table.id)] || [];
    if (!found.length) return null;
    var items = el("ul");
    found.forEach(function (b) {
      items.appendChild(el("li", "stat-badge stat-" + token(b.kind),
        link(b.url, null, b.text), " ", el("span", "quiet", b.detail)));
    });
    var node = el("section", "block statistics", items);
    node.setAttribute("aria-label", "Statistics");
    return node;
  }

  function equipmentBlock(table) {
    var items = table.equipment.map(function (s) {
      return el("li", "set due-" + token(s.due),
        el("span", "word", DUE_WORDS[s.due] || s.due), " ",
        el("span", "what", s.composition + " ", el("span", "quiet", s.set)), " ",
        el("span", "when", "due out " + dateTime(s.due_at)), " ",
        el("span", "limit", s.limit));
    });
    table.missing_sets.forEach(function (label) {
      items.push(el("li", "set due-missing", el("span", "word", "missing"), " ",
        el("span", "what", label), " ", el("span", "when", "none in play")));
    });
    return block("equipment", "Equipment", list("ul", items, "None"));
  }

  function devicesBlock(table) {
    var items = table.devices.map(function (d) {
      return el("li", "device health-" + token(d.health),
        (function () { var dot = el("span", "dot"); dot.setAttribute("aria-hidden", "true"); return dot; })(),
        el("span", "word", HEALTH_WORDS[d.health] || d.health), " ",
        link(d.admin_url, null, d.kind + (d.position ? " #" + d.position : "")), " ",
        el("span", "quiet", d.serial + " · " + d.status_display + " · " + agoText(d.seconds_since_seen)));
    });
    return block("devices", "Devices", list("ul", items, "None"));
  }

  function resultsBlock(table, today) {
    var items = table.last_results.map(function (r) {
      return el("li", "result result-" + token(r.status),
        link(r.admin_url, null, "#" + r.number), " ",
        el("span", "result-text", r.result), " ",
        el("span", "result-status", r.status_display), " ",
        el("span", "quiet", short(r.at, today)));
    });
    return block("results", "Last results", list("ol", items, "None yet"));
  }

  function card(table, today) {
    var status = token(table.status);
    var game = el("div", "game", table.game.name);
    if (table.variant.name !== table.game.name) {
      game.appendChild(document.createTextNode(" "));
      game.appendChild(el("span", "variant", "· " + table.variant.name));
    }
    var meta = table.holder;
    if (table.status_changed_at) {
      meta += " · " + table.status_display.toLowerCase() + " since " + short(table.status_changed_at, today);
    }
    var node = el("article", "table-card status-" + status,
      el("header", "card-head",
        link(table.admin_url, "table-number", table.number),
        el("span", "badge status-" + status, table.status_display)),
      game,
      el("div", "meta", meta),
      alertBlock(table.settlement_alert, today),
      waitBlock(table),
      statisticsBlock(table),
      roundBlock(table.round, today),
      equipmentBlock(table),
      devicesBlock(table),
      resultsBlock(table, today));
    node.setAttribute("data-table-id", String(table.id));
    node.setAttribute("data-table-number", table.number);
    return node;
  }

  function count(className, n, words, alert) {
    return el("span", "count " + className + (alert && n ? " alert" : ""), el("b", null, String(n)), " " + words);
  }

  function drawSummary(tables) {
    var n = { open: 0, suspended: 0, closed: 0, overdue: 0, devices: 0, settlements: 0, waits: 0 };
    tables.forEach(function (t) {
      if (n.hasOwnProperty(t.status)) n[t.status] += 1;
      t.equipment.forEach(function (s) { if (s.due === "overdue") n.overdue += 1; });
      t.devices.forEach(function (d) { if (d.health !== "ok") n.devices += 1; });
      if (t.settlement_alert) n.settlements += 1;
      if (t.device_wait && t.device_wait.alert) n.waits += 1;
    });
    summary.replaceChildren(
      count("count-open", n.open, "open"), " ",
      count("count-suspended", n.suspended, "suspended"), " ",
      count("count-closed", n.closed, "closed"), " ",
      count("count-overdue", n.overdue, (n.overdue === 1 ? "set" : "sets") + " overdue", true), " ",
      count("count-devices", n.devices, (n.devices === 1 ? "device" : "devices") + " not ok", true), " ",
      count("count-settlements", n.settlements, (n.settlements === 1 ? "settlement" : "settlements") + " stuck", true), " ",
      count("count-waits", n.waits, (n.waits === 1 ? "round" : "rounds") + " waiting on a device", true));
  }

  function draw(snapshot) {
    lastSnapshot = snapshot;
    var today = dateTime(snapshot.at).slice(0, 10);
    var cards = snapshot.tables.map(function (table) { return card(table, today); });
    if (!cards.length) cards = [el("p", "empty", "No tables on the floor yet.")];
    main.replaceChildren.apply(main, cards);
    drawSummary(snapshot.tables);
  }

  function connected(snapshot) {
    lastAt = snapshot.at;
    updated.textContent = "updated " + clock(snapshot.at);
    updated.classList.remove("stale");
    lost.hidden = true;
    document.body.classList.remove("is-lost");
  }

  function disconnected(why) {
    if (signIn) signIn.hidden = !signedOut;
    lostDetail.textContent = why + "; showing the floor " +
      (lastAt ? "as of " + clock(lastAt) : "as the page loaded it") +
      ". Retrying " + (nextMs > pollMs ? "in " + Math.round(nextMs / 1000) + " s." :
        "every " + pollMs / 1000 + " s.");
    lost.hidden = false;
    updated.classList.add("stale");
    document.body.classList.add("is-lost");
  }

  function poll() {
    signedOut = false;
    nextMs = pollMs;
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, Math.max(5000, 3 * pollMs));
    fetch(url, {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
      signal: controller.signal,
    })
      .then(null, function (error) {
        // fetch itself failed: the network, or our own time limit.
        throw new Error(error.name === "AbortError" ? "No answer from the server" :
          "The server cannot be reached");
      })
      .then(function (response) {
        signedOut = response.status === 401 || response.status === 403;
        if (signedOut) {
          throw new Error("Signed out, or no longer allowed to see the floor (HTTP " + response.status + ")");
        }
        if (response.status === 429) {
          var wait = parseInt(response.headers.get("Retry-After"), 10);
          nextMs = Math.max(pollMs, (wait > 0 ? wait : 60) * 1000);
          throw new Error("Too many requests from this account: every screen signed in as" +
            " it shares one budget (HTTP 429)");
        }
        if (!response.ok) throw new Error("The server answered HTTP " + response.status);
        return response.json();
      })
      .then(function (snapshot) {
        draw(snapshot);
        connected(snapshot);
      })
      .catch(function (error) {
        disconnected(error.message || String(error));
      })
      .then(function () {
        clearTimeout(timer);
        setTimeout(poll, nextMs);
      });
  }

  // The badges: kept as they were when a poll fails (the floor's own poll says so).
  function pollStatistics() {
    fetch(statisticsUrl, {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
    })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (statistics) {
        badges = statistics.tables || {};
        if (lastSnapshot) draw(lastSnapshot);
      })
      .catch(function () { /* the last badges stay */ })
      .then(function () { setTimeout(pollStatistics, statisticsMs); });
  }

  poll();
  if (statisticsUrl) setTimeout(pollStatistics, statisticsMs);
})();
