#!/usr/bin/env node
'use strict';
// A second, independent peer on plain Node.js, written from docs/PROTOCOL.md.
//
//   node peer.js serve --board DIR --name NAME [--stale-after S] [--lock-timeout S] [--secret-file F]
//   node peer.js play  --board DIR --color black|white [--size N] [--name NAME] [--secret-file F]
//
// 'serve' answers the conformance kit's JSON requests; 'play' plays one game
// (the first legal move, in row-major order) and exits 0 when it ends, 3 when
// the game is refused (either side), 2 on a usage or board error, 4 when the
// other side left for good.
//
// The shared secret (A1): --secret-file FILE, else the environment variable
// CARDSTAND_SECRET. With one, every message is signed and unsigned or wrongly
// signed ones are refused; a side with a secret and a side without refuse to play.

const fs = require('fs');
const { Board, InvalidArgument, sleep, now, token, visible, loadSecret } = require('./cardstand.js');

function args(argv) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--')) out[argv[i].slice(2)] = argv[i + 1], i++;
    else out._.push(argv[i]);
  }
  return out;
}

// -- serve: JSON lines in, JSON lines out ------------------------------------------------------
function* lines() {
  const buf = Buffer.alloc(65536);
  let rest = '';
  for (;;) {
    let n;
    try { n = fs.readSync(0, buf, 0, buf.length, null); } catch (e) {
      if (e.code === 'EAGAIN') { sleep(5); continue; }
      if (e.code === 'EOF') n = 0; else throw e;
    }
    if (n === 0) { if (rest) yield rest; return; }
    rest += buf.slice(0, n).toString('utf8');
    let i;
    while ((i = rest.indexOf('\n')) >= 0) { yield rest.slice(0, i); rest = rest.slice(i + 1); }
  }
}

function serve(a) {
  const say = (o) => fs.writeSync(1, JSON.stringify(o) + '\n');
  let me;
  try {
    me = new Board(a.board, a.name, { staleAfter: parseFloat(a['stale-after'] || '10'),
                                      lockTimeout: parseFloat(a['lock-timeout'] || '10'),
                                      secret: loadSecret(a['secret-file'] || null) });
  } catch (e) { say({ ok: false, error: e.message }); return 2; }
  const rejected = () => me.takeRejected().map((r) => ({ sender: r.sender, run: r.senderRun, seq: r.seq, reason: r.reason }));
  for (const line of lines()) {
    if (!line.trim()) continue;
    let ans;
    try {
      const req = JSON.parse(line);
      switch (req.op) {
        case 'init': me.join(); ans = { ok: true }; break;
        case 'quiet': ans = { ok: true, result: me.quiet() }; break;
        case 'talk': { const r = me.talk(req.to || '', req.body || ''); ans = { ok: true, result: r[0], sender: r[1], body: r[2], error: me.lastError, rejected: rejected() }; break; }
        case 'send': ans = { ok: true, result: me.send(req.to, req.body || '') ? 1 : 0, error: me.lastError }; break;
        case 'recv': {
          const m = me.receive();
          ans = { ok: true, result: m ? 2 : (me.lastError ? 0 : -1), sender: m ? m.sender : '', body: m ? m.body : '',
                  signed: m ? m.signed : false, error: me.lastError, rejected: rejected() };
          break;
        }
        case 'wipe': ans = { ok: true, result: me.wipe() }; break;
        case 'quit': say({ ok: true }); return 0;
        default: ans = { ok: false, error: `unknown op ${req.op}` };
      }
    } catch (e) { ans = { ok: false, error: e.message }; }
    say(ans);
  }
  return 0;
}

// -- the rules (any even size), on a plain array ----------------------------------------------
const DIRS = [[0, -1], [1, -1], [1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1]];
class Rules {
  constructor(n) {
    this.n = n;
    this.cells = new Array(n * n).fill(-1);                // -1 empty, 0 black, 1 white
    const h = n / 2;
    this.cells[(h - 1) * n + h - 1] = 1; this.cells[h * n + h] = 1;
    this.cells[(h - 1) * n + h] = 0; this.cells[h * n + h - 1] = 0;
    this.turn = 0;
  }
  flips(sq, c) {
    const n = this.n, x0 = sq % n, y0 = Math.floor(sq / n), out = [];
    if (this.cells[sq] !== -1) return out;
    for (const [dx, dy] of DIRS) {
      const run = [];
      let x = x0 + dx, y = y0 + dy;
      while (x >= 0 && x < n && y >= 0 && y < n && this.cells[y * n + x] === 1 - c) { run.push(y * n + x); x += dx; y += dy; }
      if (run.length && x >= 0 && x < n && y >= 0 && y < n && this.cells[y * n + x] === c) out.push(...run);
    }
    return out;
  }
  moves(c = this.turn) { const m = []; for (let s = 0; s < this.n * this.n; s++) if (this.flips(s, c).length) m.push(s); return m; }
  over() { return !this.moves(0).length && !this.moves(1).length; }
  play(sq) {                                                   // sq -1: pass
    if (sq < 0) {
      if (this.over()) throw new Error('the game is over');
      if (this.moves().length) throw new Error('you cannot pass: there is a legal move');
      this.turn ^= 1;
      return;
    }
    if (this.cells[sq] !== -1) throw new Error(`${this.name(sq)} is already taken`);
    const f = this.flips(sq, this.turn);
    if (!f.length) throw new Error(`${this.name(sq)} flips nothing`);
    for (const s of f) this.cells[s] = this.turn;
    this.cells[sq] = this.turn;
    this.turn ^= 1;
  }
  name(sq) { return sq < 0 ? 'pass' : String.fromCharCode(97 + sq % this.n) + (Math.floor(sq / this.n) + 1); }
  parse(t) {
    t = String(t).toLowerCase();
    if (t === 'pass') return -1;
    const m = /^([a-z])([0-9]{1,2})$/.exec(t);
    if (!m) throw new Error(`not a square: ${visible(t, 20)}`);
    const x = m[1].charCodeAt(0) - 97, y = parseInt(m[2], 10) - 1;
    if (x >= this.n || y < 0 || y >= this.n) throw new Error(`${t} is off the board`);
    return y * this.n + x;
  }
  count() { let b = 0, w = 0; for (const c of this.cells) { if (c === 0) b++; else if (c === 1) w++; } return [b, w]; }
}

// -- game messages (P3, P4) --------------------------------------------------------------------
// P4: every byte outside A-Z a-z 0-9 - . _ ~ as %XX (of its UTF-8); never throws
function quote(v) {
  let out = '';
  for (const b of Buffer.from(String(v), 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}
// P4, the reader's side, as lenient as Python's urllib.parse.unquote: a '%' not followed by two
// hex digits stays as it is, bytes that are not UTF-8 become U+FFFD; never throws
function unquote(s) {
  if (!s.includes('%')) return s;
  const parts = [];
  let bytes = [];
  const flush = () => { if (bytes.length) { parts.push(Buffer.from(bytes).toString('utf8')); bytes = []; } };
  for (let i = 0; i < s.length;) {
    if (s[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      flush();
      const j = s.indexOf('%', i + 1);
      const end = j < 0 ? s.length : j;
      parts.push(s.slice(i, end));
      i = end;
    }
  }
  flush();
  return parts.join('');
}
function control(verb, f = {}) {
  return ['#cardstand', verb, ...Object.entries(f).map(([k, v]) => `${k}=${quote(v)}`)].join(' ');
}
const VERBS = new Set(['hello', 'welcome', 'refuse', 'refused', 'resign', 'bye', 'say', 'result']);
const MOVE_RE = /^\s*([A-Za-z][0-9]{1,2}|pass|PASS|Pass)\s*(?:#([0-9]+))?\s*(?:t=([0-9]+))?\s*$/;
// Classify a body; never throws (P5: anything else is junk). Keys are kept in an object
// without a prototype, so a key like "__proto__" or "constructor" is just a key.
function parse(body) {
  const f = Object.create(null);
  if (typeof body !== 'string') return { kind: 'junk', f };
  const m = MOVE_RE.exec(body);
  if (m) return { kind: 'move', square: m[1].toLowerCase(), n: m[2] === undefined ? null : Number(m[2]), nText: m[2] || '', f };
  const w = body.trim().split(' ');
  if (w.length >= 2 && w[0] === '#cardstand' && VERBS.has(w[1])) {
    for (const kv of w.slice(2)) {
      const i = kv.indexOf('=');
      if (i <= 0) return { kind: 'junk', f: Object.create(null) };
      f[kv.slice(0, i)] = unquote(kv.slice(i + 1));
    }
    return { kind: w[1], f };
  }
  return { kind: 'junk', f };
}
// A transcript with passes written out ("f5d6c3passd3"): the list of plies, or null when it is
// not one (H2)
function splitTranscript(t) {
  if (t === undefined) return [];
  if (typeof t !== 'string' || t.length > 4 * 26 * 26 * 2) return null;
  const s = t.toLowerCase();
  if (!/^(?:pass|[a-z][0-9]{1,2})*$/.test(s)) return null;
  return s.match(/pass|[a-z][0-9]{1,2}/g) || [];
}
// Game ids become file names (records/<game>.game): [A-Za-z0-9._-]{1,64}, not starting with '.'
const GAME_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;
function checkGameId(id) { return typeof id === 'string' && GAME_ID.test(id); }

class Leave extends Error {                                   // end the game with an exit code
  constructor(code) { super(`leave ${code}`); this.code = code; }
}

const SECRET_HINT = 'give both sides the same CARDSTAND_SECRET or --secret-file';

class Player {
  constructor(board, colour, { name = 'js', size = 8, wantSize = null, log = (s) => process.stdout.write(s + '\n') } = {}) {
    this.board = board;
    this.colour = colour;
    this.me = colour ? 'white' : 'black';
    this.other = colour ? 'black' : 'white';
    this.name = name;
    this.wantSize = wantSize;
    this.log = log;
    this.rules = new Rules(size);
    this.moves = [];
    this.gid = colour === 0 ? 'js-' + token() : null;
    this.bound = null;                                        // the opponent's run that shook hands
    this.shaken = false;
    this.leftAt = null;
    this.lastBeat = 0;
  }

  get hasSecret() { return !!this.board.secret; }

  beat() {
    if (now() - this.lastBeat > 1) {
      this.board.beat(this.rules.turn === this.colour ? 'thinking' : 'waiting');
      this.lastBeat = now();
    }
  }

  trySend(body) {
    try { return this.board.send(this.other, body); } catch (e) {
      if (e instanceof InvalidArgument) { this.log(`not sent: ${e.message}`); return true; }
      throw e;
    }
  }

  send(body) { while (!this.trySend(body)) { this.beat(); sleep(200); } }

  refuse(reason) {
    this.trySend(control('refuse', { reason }));
    this.log(`cannot play: ${visible(reason, 300)}`);
    throw new Leave(3);
  }

  hello() {
    return this.colour === 0
      ? control('hello', { v: 1, role: 'black', name: this.name, size: this.rules.n, game: this.gid, moves: this.moves.join('') })
      : control('hello', { v: 1, role: 'white', name: this.name, ...(this.wantSize ? { size: this.wantSize } : {}) });
  }

  welcome() {
    return control('welcome', { v: 1, role: 'white', name: this.name, game: this.gid, moves: this.moves.join('') });
  }

  // Messages the board refused (A4): during the handshake a "no MAC" from the other side
  // means it has no secret: refuse the game. Afterwards they are shown and ignored.
  checkRejected() {
    let list = [];
    try { list = this.board.takeRejected ? this.board.takeRejected() : []; } catch (e) { list = []; }
    for (const r of list) {
      const sender = String(r.sender || '');
      const reason = String(r.reason || '');
      if (!this.shaken && sender.toLowerCase() === this.other && reason.startsWith('no MAC')) {
        this.refuse(`${this.other} plays without the shared secret; ${SECRET_HINT}`);
      }
      this.log(`a message claiming to be from ${visible(sender, 40)} was refused: ${visible(reason, 200)}`);
    }
  }

  // The next message from the other side (or null)
  next(timeout) {
    const m = this.board.wait(timeout);
    this.checkRejected();
    if (!m) return null;
    if (String(m.sender).toLowerCase() !== this.other) {
      this.log(`ignored a message from ${visible(m.sender, 40)}`);
      return null;
    }
    return m;
  }

  // Replay a transcript from the start on a board of `size`: the new Rules, or an error text
  replayed(list, size) {
    const r = new Rules(size);
    try {
      for (const t of list) r.play(r.parse(t));
    } catch (e) { return `bad transcript: ${e.message}`; }
    return r;
  }

  // H5: our transcript and theirs must agree (one a prefix of the other); take the longer
  adopt(movesField) {
    const theirs = splitTranscript(movesField);
    if (theirs === null) return 'bad transcript';
    const n = Math.min(theirs.length, this.moves.length);
    if (theirs.slice(0, n).join(',') !== this.moves.slice(0, n).join(',')) {
      return 'the two sides remember different games (records differ)';
    }
    if (theirs.length > this.moves.length) {
      const r = this.replayed(theirs, this.rules.n);
      if (typeof r === 'string') return r;
      this.rules = r;
      this.moves = theirs.slice();
    }
    return '';
  }

  // The handshake rules (H2-H5, A6), for a hello or welcome at any time
  greeting(m, msg) {
    if (!this.hasSecret && m.signed) {
      this.refuse(`${this.other} plays with a shared secret and this side has none: ${SECRET_HINT}`);
    }
    const v = msg.f.v;
    if (v !== '1') this.refuse(`protocol version ${visible(v === undefined ? '?' : v, 20)} is not supported (this program speaks 1)`);
    if (msg.f.name !== undefined) this.theirName = visible(msg.f.name, 32);
    if (this.colour === 0) {                                   // black
      if (msg.kind === 'hello') {
        if (msg.f.size !== undefined && msg.f.size !== String(this.rules.n)) {
          this.refuse(`white wants a ${visible(msg.f.size, 8)}x${visible(msg.f.size, 8)} board, black proposes ${this.rules.n}x${this.rules.n}`);
        }
        this.send(this.hello());                              // answer a (re)started white
        return;
      }
      if (msg.f.game !== this.gid) return;                    // a welcome to an older hello
      const why = this.adopt(msg.f.moves);
      if (why) this.refuse(why);
      this.bind(m);
      return;
    }
    if (msg.kind === 'welcome') return;                       // white
    const game = msg.f.game;
    if (!checkGameId(game)) this.refuse(`bad game id ${JSON.stringify(visible(game === undefined ? '' : game, 70))}`);
    const sizeText = msg.f.size === undefined ? '8' : msg.f.size;
    const size = /^[0-9]{1,2}$/.test(sizeText) ? parseInt(sizeText, 10) : NaN;
    if (!(size >= 4 && size <= 26 && size % 2 === 0)) this.refuse(`bad board size ${JSON.stringify(visible(sizeText, 20))}`);
    if (this.wantSize && size !== this.wantSize) {
      this.refuse(`black proposes a ${size}x${size} board, white wants ${this.wantSize}x${this.wantSize}`);
    }
    if (game !== this.gid || size !== this.rules.n) {         // a new game (H5)
      const list = splitTranscript(msg.f.moves);
      if (list === null) this.refuse('bad transcript');
      const r = this.replayed(list, size);
      if (typeof r === 'string') this.refuse(r);
      this.gid = game;
      this.rules = r;
      this.moves = list.slice();
    } else {
      const why = this.adopt(msg.f.moves);
      if (why) this.refuse(why);
    }
    this.send(this.welcome());
    this.bind(m);
  }

  bind(m) {
    if (this.bound !== null && m.senderRun !== this.bound) this.log(`${this.other} restarted: now playing with its new run`);
    this.bound = m.senderRun;
    this.shaken = true;
  }

  describe(m, msg) {
    if (msg.kind === 'move') return `a move ${visible(m.body, 40)}`;
    if (msg.kind === 'junk') return `a message ${JSON.stringify(visible(m.body, 40))}`;
    return `a '${msg.kind}'`;
  }

  // One message from the other side, during the handshake or the game
  handle(m) {
    const msg = parse(m.body);
    if (msg.kind === 'hello' || msg.kind === 'welcome') return this.greeting(m, msg);
    if (!this.shaken) {
      if (msg.kind === 'refuse') { this.log(`refused: ${visible(msg.f.reason, 300)}`); throw new Leave(3); }
      if (msg.kind === 'say') this.log(`${visible(this.theirName || this.other, 32)} says: ${visible(msg.f.text, 300)}`);
      return;
    }
    if (m.senderRun !== this.bound) {                         // run binding
      this.log(`${this.describe(m, msg)} from another run of ${this.other}, not the one that joined this game, was ignored`);
      return;
    }
    switch (msg.kind) {
      case 'move': return this.theirMove(m, msg);
      case 'resign': this.log(`${this.other} resigned`); throw new Leave(0);
      case 'bye': this.leftAt = now(); this.log(`${this.other} left (it may come back)`); return;
      case 'refuse': this.log(`refused: ${visible(msg.f.reason, 300)}`); throw new Leave(3);
      case 'refused': this.log(`${this.other} refused ${visible(msg.f.move, 40)}: ${visible(msg.f.reason, 200)}`); return;
      case 'say': this.log(`${visible(this.theirName || this.other, 32)} says: ${visible(msg.f.text, 300)}`); return;
      default: return;                                         // result, junk (P5)
    }
  }

  theirMove(m, msg) {                                          // G2
    this.leftAt = null;
    const expected = this.moves.length + 1;
    const echo = visible(m.body, 40);
    if (msg.n !== null && msg.n < expected) return;            // a duplicate
    if (msg.n !== null && msg.n > expected) {
      this.send(control('refused', { move: echo, reason: `move ${visible(msg.nText.replace(/^0+(?=.)/, ''), 20)} arrived but ${expected} was expected` }));
      return;
    }
    if (this.rules.turn === this.colour || this.rules.over()) {
      this.send(control('refused', { move: echo, reason: 'not your turn' }));
      return;
    }
    try { this.rules.play(this.rules.parse(msg.square)); } catch (e) {
      this.send(control('refused', { move: echo, reason: e.message }));
      return;
    }
    this.moves.push(msg.square);
  }

  myMove() {
    const legal = this.rules.moves();
    const sq = legal.length ? legal[0] : -1;
    this.rules.play(sq);
    this.moves.push(this.rules.name(sq));
    this.send(`${this.rules.name(sq)} #${this.moves.length} t=0`);
  }

  run() {
    this.board.quiet();
    this.trySend(this.hello());
    let nextHello = now() + 2;
    while (!this.shaken) {                                     // section 13
      this.beat();
      const m = this.next(0.2);
      if (m) { this.handle(m); continue; }
      if (now() > nextHello) { this.trySend(this.hello()); nextHello = now() + 2; }
    }
    this.log(`game ${this.gid} on ${this.rules.n}x${this.rules.n} as ${this.me}`);
    while (!this.rules.over()) {                               // section 14
      this.beat();
      if (this.rules.turn === this.colour) { this.myMove(); continue; }
      const m = this.next(0.5);
      if (m) { this.handle(m); continue; }
      if (this.leftAt && now() - this.leftAt > 60) { this.log('the other side left'); return 4; }
    }
    const [b, w] = this.rules.count();
    this.trySend(control('result', { black: b, white: w }));
    this.log(`game over: black ${b} - white ${w}`);
    return 0;
  }
}

function play(a) {
  const colour = a.color === 'white' ? 1 : 0;
  const secret = loadSecret(a['secret-file'] || null);
  const size = a.size === undefined ? 8 : parseInt(a.size, 10);
  if (!(size >= 4 && size <= 26 && size % 2 === 0)) throw new InvalidArgument(`bad board size ${a.size}`);
  const board = new Board(a.board, colour ? 'white' : 'black', { secret }).join();
  const p = new Player(board, colour, { name: a.name || 'js', size, wantSize: colour && a.size !== undefined ? size : null });
  try { return p.run(); } catch (e) {
    if (e instanceof Leave) return e.code;
    throw e;
  }
}

function main() {
  const [cmd, ...rest] = process.argv.slice(2);
  const a = args(rest);
  try {
    if (cmd === 'serve') return serve(a);
    if (cmd === 'play') return play(a);
  } catch (e) {
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }
  process.stderr.write('usage: node peer.js serve --board DIR --name NAME | play --board DIR --color black|white [--secret-file FILE]\n');
  return 2;
}

module.exports = { parse, control, quote, unquote, splitTranscript, checkGameId, Rules, Player, Leave };

if (require.main === module) process.exitCode = main();
