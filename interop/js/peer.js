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
const path = require('path');
const crypto = require('crypto');
const { Board, InvalidArgument, MemberBusy, sleep, now, token, visible, loadSecret, readBytes, replaceWith, record } = require('./cardstand.js');

const FLAGS = new Set(['new', 'take-over']);                 // options without a value
function args(argv) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i].slice(2);
    if (argv[i].startsWith('--') && FLAGS.has(k)) out[k] = true;
    else if (argv[i].startsWith('--')) out[k] = argv[i + 1], i++;
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
        case 'init': me.join(!!req.take_over); ans = { ok: true }; break;
        case 'quiet': ans = { ok: true, result: me.quiet(), error: me.lastError }; break;
        case 'talk': { const r = me.talk(req.to || '', req.body || ''); ans = { ok: true, result: r[0], sender: r[1], body: r[2], error: me.lastError, rejected: rejected() }; break; }
        case 'send': ans = { ok: true, result: me.send(req.to, req.body || '') ? 1 : 0, error: me.lastError }; break;
        case 'recv': {
          const m = me.receive();
          ans = { ok: true, result: m ? 2 : (me.lastError ? 0 : -1), sender: m ? m.sender : '', body: m ? m.body : '',
                  signed: m ? m.signed : false, error: me.lastError, rejected: rejected() };
          break;
        }
        case 'wipe': ans = { ok: true, result: me.wipe(), error: me.lastError }; break;
        case 'quit': say({ ok: true }); me.close(); return 0;
        default: ans = { ok: false, error: `unknown op ${req.op}` };
      }
    } catch (e) { ans = { ok: false, error: e.message }; }
    say(ans);
  }
  me.close();                                                        // acknowledges the last message (M5)
  return 0;
}

// -- the rules (any even size), on a plain array ----------------------------------------------
const DIRS = [[0, -1], [1, -1], [1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1]];
// `shape`: a board's code (H2a: rows of # X O . joined by /), '' for the plain board of size n
class Rules {
  constructor(n, shape = '') {
    this.n = n;
    this.cells = new Array(n * n).fill(-1);                // -1 empty, 0 black, 1 white, 2 a hole
    if (shape) {
      const code = shape.replace(/\//g, '');
      for (let s = 0; s < n * n; s++) this.cells[s] = { '#': 2, X: 0, O: 1, '.': -1 }[code[s]];
    } else {
      const h = n / 2;
      this.cells[(h - 1) * n + h - 1] = 1; this.cells[h * n + h] = 1;
      this.cells[(h - 1) * n + h] = 0; this.cells[h * n + h - 1] = 0;
    }
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
    if (this.cells[sq] === 2) throw new Error(`${this.name(sq)} is a hole`);
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
// H2a: a board's code checked: '' for the plain board of `size`, the code itself for another
// board of that size; throws saying why for anything else
function parseShape(code, size) {
  if (typeof code !== 'string' || !/^[#XO.]{4,26}(?:\/[#XO.]{4,26}){3,25}$/.test(code)) {
    throw new Error("bad board shape: not rows of '#', 'X', 'O' and '.' joined by '/'");
  }
  const rows = code.split('/');
  const n = rows.length;
  if (rows.some((r) => r.length !== n)) throw new Error('bad board shape: the picture is not a square');
  if (n % 2) throw new Error(`bad board shape: the picture is ${n}x${n}: a board is even, from 4 to 26`);
  if (n !== size) throw new Error(`the shape is ${n}x${n}, its size says ${size}`);
  if (!code.includes('X') || !code.includes('O')) throw new Error(`bad board shape: the start has no ${code.includes('X') ? 'white' : 'black'} disc`);
  const r = new Rules(n, code);
  if (r.over()) throw new Error('bad board shape: neither side can move from the start');
  const plain = new Rules(n);
  return r.cells.every((c, i) => c === plain.cells[i]) ? '' : code;
}
const boardName = (size, shape) => (shape ? shape : `${size}x${size}`);

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
// P5: a move number or time of more than 9 digits makes the line junk
const MOVE_RE = /^\s*([A-Za-z][0-9]{1,2}|pass|PASS|Pass)\s*(?:#([0-9]{1,9}))?\s*(?:t=([0-9]{1,9}))?\s*$/;
// Classify a body; never throws (P5: anything else is junk). Keys are kept in an object
// without a prototype, so a key like "__proto__" or "constructor" is just a key.
function parse(body) {
  const f = Object.create(null);
  if (typeof body !== 'string') return { kind: 'junk', f };
  const m = MOVE_RE.exec(body);
  if (m) return { kind: 'move', square: m[1].toLowerCase(), n: m[2] === undefined ? null : Number(m[2]), f };
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
const DEVICES = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]) *$/i;   // Windows (N1)
function checkGameId(id) { return typeof id === 'string' && GAME_ID.test(id) && !DEVICES.test(id.split('.')[0]); }

// -- game records (D1-D3) ----------------------------------------------------------------------
const RECORD_MAGIC = 'cardstand-game 1';
const ACK_MAGIC = 'cardstand-ack 1';
const RECORD_KEYS = ['id', 'size', 'black', 'white', 'date', 'mode', 'moves', 'status', 'result'];
// D1, D4: a shaped game's record has `shape` after `size` (H2a)
const recordKeys = (shaped) => (shaped ? ['id', 'size', 'shape', ...RECORD_KEYS.slice(2)] : RECORD_KEYS);
const ENDED = new Set(['over', 'resigned']);                 // G6: offered again until acknowledged
const CLOSED = new Set(['abandoned', 'refused']);            // never resumed
const MAX_RECORD = 256 * 1024;
// D1: one value on one line: \ n r t named, other C0 / DEL / C1 as \xHH, the bidi controls and
// U+2028 U+2029 as \uHHHH (lower-case hex)
const ESCAPE_ME = /[\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
const NAMED = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
function escapeValue(v) {
  return String(v).replace(ESCAPE_ME, (c) => NAMED[c] || (c.charCodeAt(0) < 0x100
    ? '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0') : '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')));
}
const UNNAMED = { '\\': '\\', n: '\n', r: '\r', t: '\t' };
function unescapeValue(t) {
  return t.replace(/\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|([\s\S]))/g, (m, x, u, c) => {
    if (x) return String.fromCharCode(parseInt(x, 16));
    if (u) return String.fromCharCode(parseInt(u, 16));
    return UNNAMED[c] !== undefined ? UNNAMED[c] : '\\' + c;
  });
}
// D1, D3: space, tab and CR only (as comm): a BOM or U+00A0 is not white space here
const asciiTrim = (t) => t.replace(/^[ \t\r]+|[ \t\r]+$/g, '');
const recordLines = (r) => recordKeys(!!r.shape).map((k) => `${k}: ${escapeValue(r[k])}\n`).join('');
// D4: HMAC-SHA256 of "cardstand-game-mac 1\n" and the nine key lines as written
function recordMac(secret, lines) {
  return crypto.createHmac('sha256', secret).update(Buffer.from(`cardstand-game-mac 1\n${lines}`, 'utf8')).digest('hex');
}
function recordText(r, secret = null) {
  const lines = recordLines(r);
  return RECORD_MAGIC + '\n' + lines + (secret ? `mac: ${recordMac(secret, lines)}\n` : '');
}
class Untrusted extends Error {}                              // D4: not signed with our secret
class Damaged extends Error {}                                // D1, D5: not what its moves give
function checkRecordMac(r, secret) {
  if (!r.mac) throw new Untrusted('it is not signed: it was written without the shared secret');
  const keys = recordKeys('shape' in r.written);
  const missing = keys.find((k) => !(k in r.written));
  if (missing) throw new Untrusted(`its signature cannot be checked: no '${missing}' line`);
  const want = Buffer.from(recordMac(secret, keys.map((k) => `${k}: ${r.written[k]}\n`).join('')));
  const got = Buffer.from(r.mac);
  if (!/^[0-9a-f]{64}$/.test(r.mac) || !crypto.timingSafeEqual(got, want)) {
    throw new Untrusted('its signature does not match: it was changed, or written with another secret');
  }
}
// D5: the moves replay, `over` only when neither side can move (result: the disc counts),
// `resigned` with "black resigned" or "white resigned"
function verifyRecord(r) {
  const rules = new Rules(r.size, r.shape);
  const list = splitTranscript(r.moves);
  try {
    if (list === null) throw new Error('not a transcript');
    for (const t of list) rules.play(rules.parse(t));
  } catch (e) { throw new Damaged(`its moves do not replay: ${e.message}`); }
  if (r.status === 'over') {
    if (!rules.over()) throw new Damaged(`it says the game is over, but after ${list.length} plies ${['black', 'white'][rules.turn]} can still move`);
    const [b, w] = rules.count();
    if (r.result.trim() !== `${b}-${w}`) throw new Damaged(`its result '${visible(r.result, 20)}' is not what its moves give (${b}-${w})`);
  } else if (r.status === 'resigned' && r.result !== 'black resigned' && r.result !== 'white resigned') {
    throw new Damaged(`it says a side resigned, but its result is '${visible(r.result, 40)}'`);
  }
  return rules;
}
// A record from its text (D1); throws for anything that is not a sound record
function parseRecord(text) {
  const lines = text.split('\n');
  if (asciiTrim(lines[0]) !== RECORD_MAGIC) throw new Damaged('not a cardstand game record');
  const f = Object.create(null);
  const written = Object.create(null);                       // values as written (D4)
  for (let line of lines.slice(1)) {                         // as comm reads records (R1, D1):
    if (line.endsWith('\r')) line = line.slice(0, -1);       // keys as written, the first value counts
    const i = line.indexOf(': ');
    const k = line.slice(0, i);
    if (i > 0 && !(k in f)) { written[k] = line.slice(i + 2); f[k] = unescapeValue(written[k]); }
  }
  if (!checkGameId(f.id)) throw new Damaged(`damaged game record: bad game id ${visible(f.id === undefined ? '' : f.id, 80)}`);
  const size = parseSize(f.size === undefined ? '8' : f.size);
  if (size === null) throw new Damaged(`damaged game record: bad size ${visible(f.size, 20)}`);
  let shape = '';
  try { if (f.shape !== undefined) shape = parseShape(f.shape, size); } catch (e) { throw new Damaged(`damaged game record: ${e.message}`); }
  const get = (k, d) => (f[k] === undefined ? d : f[k]);
  return { id: f.id, size, shape, black: get('black', 'black'), white: get('white', 'white'), date: get('date', ''),
           mode: get('mode', 'full'), moves: get('moves', ''), status: get('status', 'playing'), result: get('result', ''),
           written, mac: written.mac || '' };
}
function newRecord(id, size, black, white, shape = '') {
  return { id, size, shape, black, white, date: new Date().toISOString().slice(0, 19) + 'Z', mode: 'full', moves: '',
           status: 'playing', result: '' };
}
// The records folder of a board (D1-D3): only records/current, records/<valid id>.game and
// records/<valid id>.ack-<colour> are opened, never through a link; a `records` that is a link
// or not a folder is not used (and set aside when written, F2)
class Records {
  constructor(board) { this.board = board; this.dir = path.join(board.folder, 'records'); this.secret = board.secret || null; }
  file(id, suffix = 'game') {
    if (!checkGameId(id)) throw new Error(`bad game id ${visible(id, 80)}`);
    return path.join(this.dir, `${id}.${suffix}`);
  }
  // a game record whole (bigger than MAX_RECORD: damaged, B7 D1); `current` and the ack files
  // (limit 4096): their first 4096 bytes, the rest ignored (R1), as comm reads them
  read(p, limit = MAX_RECORD) {
    if (this.board.sound(['records'])) return null;
    const b = readBytes(p, limit);
    if (b !== null && b.length > limit && limit === MAX_RECORD) throw new Damaged('too big for a game record');
    return b === null ? null : b.subarray(0, limit).toString('utf8');
  }
  writable() {
    if (this.board.gone()) throw Object.assign(new Error(`the board folder ${this.board.folder} is gone or unreachable`), { code: 'ENOENT' });
    this.board.fixDir(['records']);
  }
  save(r) {                                                   // D1: `current` first, when it changes
    this.writable();
    let cur = null;
    try { cur = this.read(path.join(this.dir, 'current'), 4096); } catch (e) { cur = null; }
    if ((cur || '').trim() !== r.id) replaceWith(this.board.tmp, path.join(this.dir, 'current'), record(r.id), false);
    replaceWith(this.board.tmp, this.file(r.id), Buffer.from(recordText(r, this.secret), 'utf8'), false);
  }
  load(id) {                                                  // the record of `id` or null; throws when damaged
    const t = this.read(this.file(id));
    if (t === null) return null;
    const r = parseRecord(t);
    try {
      if (r.id !== id) throw new Damaged(`damaged game record: it says id ${visible(r.id, 80)}, its name ${id}`);
      if (this.secret) checkRecordMac(r, this.secret);          // D4
      verifyRecord(r);                                          // D5
    } catch (e) { e.size = r.size; e.shape = r.shape; e.text = t; throw e; }   // (t: what was judged, D6a)
    return r;
  }
  setAside(id) {                                              // D6: kept for people, never read again
    const dest = path.join(this.dir, `${id}.set-aside-${token()}`);
    try {
      if (this.board.sound(['records'])) return '';
      fs.renameSync(this.file(id), dest);
      return dest;
    } catch (e) { return ''; }
  }
  currentId() {
    let t = null;
    try { t = this.read(path.join(this.dir, 'current'), 4096); } catch (e) { return null; }
    return t && checkGameId(t.trim()) ? t.trim() : null;
  }
  current() {                                                 // the latest game, or null (damaged: none)
    try {
      const id = this.currentId();
      return id ? this.load(id) : null;
    } catch (e) { return null; }
  }
  acknowledge(id, colour) {                                   // D3: written by `colour`'s side only
    this.writable();
    replaceWith(this.board.tmp, this.file(id, `ack-${colour}`), record(`${ACK_MAGIC}\ngame: ${id}`), false);
  }
  acknowledged(id, colour) {
    try {
      const lines = (this.read(this.file(id, `ack-${colour}`), 4096) || '').split('\n');
      return asciiTrim(lines[0]) === ACK_MAGIC && lines.slice(1).some((l) => asciiTrim(l) === `game: ${id}`);
    } catch (e) { return false; }
  }
}
// No records at all (the fuzzer's player): nothing is kept
class NoRecords {
  save() {}
  load() { return null; }
  setAside() { return ''; }
  currentId() { return null; }
  current() { return null; }
  acknowledge() {}
  acknowledged() { return false; }
}

class Leave extends Error {                                   // end the game with an exit code
  constructor(code) { super(`leave ${code}`); this.code = code; }
}

const SECRET_HINT = 'give both sides the same CARDSTAND_SECRET or --secret-file';
const NAME_LIMIT = 64;                                       // P5: a name from the board is cut to this
// Refusal reasons, in the words of peer/texts.py (English on the wire)
const REASONS = {
  no_secret_there: (o) => `${o.other} plays without the shared secret; ${SECRET_HINT}`,
  no_secret_here: (o) => `${o.other} plays with a shared secret and this side has none: ${SECRET_HINT}`,
  other_secret: (o) => `${o.other} plays with a different shared secret (its messages fail the MAC check); ${SECRET_HINT}`,
  bad_game_id: (o) => `bad game id '${o.id}' (1-64 of A-Z a-z 0-9 . _ -, not starting with '.')`,
  bad_size: (o) => `bad board size '${o.size}'`,
  bad_moves: (o) => `the moves '${o.moves}' do not replay: ${o.reason}`,
  bad_version: (o) => `protocol version ${o.v} is not supported (this program speaks 1 and 2)`,
  bad_shape: (o) => `bad board shape: ${o.reason}`,
  shape_wanted: (o) => `white wants the board ${o.theirs}, black proposes ${o.mine}`,
  shape_proposed: (o) => `black proposes the board ${o.theirs}, white wants ${o.mine}`,
  size_wanted: (o) => `white wants a board of ${o.theirs}x${o.theirs}, black proposes ${o.mine}x${o.mine}`,
  size_proposed: (o) => `black proposes a board of ${o.theirs}x${o.theirs}, white wants ${o.mine}x${o.mine}`,
  records_differ: () => 'the two sides remember different games (records differ)',
  classic_board: (o) => `${o.other} shows no greeting, so it plays the classic protocol, which knows only the plain ` +
    `8x8 board; this game is on ${o.shape} (start without --size and --shape to play it)`,
  game_closed: (o) => `game '${o.id}' was closed (${o.status}) on this board and is not resumed: start black with --new`,
};
// refusals about the programs, not the game: a game with plies refused for one stays resumable (D1)
const PROGRAM_REASONS = new Set(['bad_version', 'no_secret_here', 'no_secret_there', 'other_secret', 'classic_board']);
function parseSize(t) {                                      // H2: an even number 4..26, else null
  if (typeof t !== 'string' || !/^[0-9]{1,3}$/.test(t)) return null;
  const n = parseInt(t, 10);
  return n % 2 === 0 && n >= 4 && n <= 26 ? n : null;
}
const has = (f, k) => Object.prototype.hasOwnProperty.call(f, k);

const ACK_WAIT = 20;                                          // G6: s to wait for the opponent's result

class Player {
  constructor(board, colour, { name = null, size = 8, wantSize = null, wantShape = null, records = null, newGame = false,
                               classicAfter = 10, patience = 120, log = (s) => process.stdout.write(s + '\n') } = {}) {
    this.board = board;
    this.colour = colour;
    this.me = colour ? 'white' : 'black';
    this.other = colour ? 'black' : 'white';
    this.nameGiven = name !== null && name !== undefined;      // else a resumed game keeps our recorded name
    this.name = this.nameGiven ? name : 'js';
    this.theirName = this.other;
    this.theirNameKnown = false;                               // from a record or a greeting: a change is told
    this.recordedName = null;
    this.wantSize = wantShape ? wantShape.split('/').length : wantSize;   // --size, if given
    this.wantShape = wantShape;                                // --shape (a code, H2a; '' the plain board), if given
    this.shape = wantShape || '';                              // the board's code ('' plain)
    this.newGame = newGame;                                    // --new: do not resume
    this.records = records || new NoRecords();
    this.log = log;
    this.rules = new Rules(this.wantSize || size, this.shape);
    this.moves = [];
    this.gid = null;
    this.rec = null;                                           // the game's record (D1)
    this.bound = null;                                         // H8: the opponent's run that shook hands
    this.shaken = false;
    this.mode = null;                                          // 'full' after a handshake
    this.leftAt = null;
    this.lastBeat = 0;
    this.foreignShown = new Map();
    this.acked = false;                                        // G6: the opponent's result has come
    this.endShown = false;
    this.resumedEnd = false;
    this.saveFailed = false;
    this.classicAfter = classicAfter;                          // H6: s before black plays classic
    this.greeted = new Set();                                  // H9: opponent runs that sent a greeting
    this.helloToClassic = new Set();                           // H6: classic runs greeted once they showed a state
    this.nextFollow = 0;
    this.askNew = null;                                        // white with --new: the game it closed (hello new=1)
    this.patience = patience;                                  // s to wait for a vanished opponent or board
    this.pending = [];                                         // messages read but not handled yet
    this.stopped = false;                                      // replaced (I6)
    this.aliveSeen = null;                                     // P2: the opponent's (run, beat) and when it changed
    this.gone = false;
    this.fullTold = false;
    this.nextPresence = 0;
    this.held = null;                                          // D6a: [id, why] of an untrusted record left alone
    this.secretShared = false;                                 // D6a: a message signed with our secret came from the opponent
    this.holdUnsigned = false;                                 // D6a: no secret, a signed record: not written yet
    if (colour === 0) {                                        // black's game until begin() (which may resume one)
      this.gid = 'js-' + token();
      this.rec = newRecord(this.gid, this.rules.n, this.name, this.theirName, this.shape);
    }
  }

  get hasSecret() { return !!this.board.secret; }

  beat() {
    if (now() - this.lastBeat > 1) {
      this.board.beat(this.rules.turn === this.colour && !this.ended() ? 'thinking' : 'waiting');
      this.lastBeat = now();
    }
  }

  trySend(body) {
    if (this.stopped) return true;                             // replaced (I6): nothing more from this run
    try { return this.board.send(this.other, body); } catch (e) {
      if (e instanceof InvalidArgument) { this.log(`not sent: ${e.message}`); return true; }
      throw e;
    }
  }

  // Send until delivered, the pause growing from 1 s to 16 s (T3); a gone board is waited for,
  // a replaced run stops (G7); failing for longer than the patience ends the run (exit 5)
  send(body) {
    let pause = 1;
    let told = null;
    const start = now();
    while (!this.trySend(body)) {
      const problem = this.board.problem;
      if (problem === 'gone' || problem === 'replaced') { this.checkBoard(); continue; }
      if (told !== problem) {
        told = problem;
        if (problem === 'full') this.log(`the disk of the board folder ${this.board.folder} is full: nothing can be sent until space is freed; trying again, less and less often`);
        else this.log(`could not send (${visible(this.board.lastError, 200)}); trying again, less and less often`);
      }
      if (now() - start > this.patience) {
        const why = problem === 'full' ? `the board's disk stayed full for ${this.patience} s`
          : `nothing could be sent for ${this.patience} s (${visible(this.board.lastError, 200)})`;
        this.log(`${why}: leaving. The game so far (${this.gid}): ${this.moves.join('') || '-'}`);
        throw new Leave(5);
      }
      this.beat();
      sleep(pause * 1000);
      pause = Math.min(pause * 2, 16);
    }
    if (told !== null) this.log('sent');
  }

  // -- P2: is the opponent still there? (about once a second) ------------------------------------
  // Its (run, beat) unchanged for 6 s, or its alive record gone after it was seen: gone, and
  // after the patience exit code 4; but when our own heartbeat cannot be written either, the
  // board's disk is full (T2): nobody can write, and after the patience exit code 5
  checkPresence() {
    const t = now();
    if (t < this.nextPresence) return;
    this.nextPresence = t + 1;
    let a = null;
    try { a = this.board.alive ? this.board.alive(this.other) : null; } catch (e) { a = null; }
    if (!a && !this.aliveSeen) return;                         // no alive record: never judged gone
    const key = a ? `${a.run} ${a.beat}` : this.aliveSeen.key;
    if (!this.aliveSeen || this.aliveSeen.key !== key) {
      if (this.gone) { this.gone = false; this.log(`${visible(this.theirName, NAME_LIMIT)} is back`); }
      this.fullTold = false;
      this.aliveSeen = { key, at: t };
      return;
    }
    const silent = t - this.aliveSeen.at;
    if (silent <= 6) return;
    this.board.beat();
    if (this.board.problem === 'full') {
      if (!this.fullTold) { this.fullTold = true; this.log(`the disk of the board folder ${this.board.folder} is full: neither side can write on the board until space is freed`); }
      if (silent > this.patience) {
        this.log(`the board's disk stayed full for ${this.patience} s: leaving. The game so far (${this.gid}): ${this.moves.join('') || '-'}`);
        throw new Leave(5);
      }
      return;
    }
    if (!this.gone) { this.gone = true; this.log(`${visible(this.theirName, NAME_LIMIT)} shows no sign of life for 6 s`); }
    if (silent > this.patience) {
      this.log(`${visible(this.theirName, NAME_LIMIT)} did not come back within ${this.patience} s: leaving`);
      throw new Leave(4);
    }
  }

  // -- G7: trouble on the board ---------------------------------------------------------------
  checkBoard() {
    if (this.board.problem === 'gone') this.boardGone();
    else if (this.board.problem === 'replaced') this.replaced();
  }

  // T1: said at once; the game stays in memory; looked at again every half second up to the
  // patience, the record written again when the folder is back, else exit code 5
  boardGone() {
    this.log(`the board folder ${this.board.folder} is gone (deleted, moved, or a share no longer mounted); the game is kept here, waiting for the folder to come back`);
    const start = now();
    let m = null;
    for (;;) {
      sleep(500);
      m = this.board.receive();
      if (this.board.problem === 'replaced') this.replaced();
      if (this.board.problem !== 'gone') break;
      if (now() - start > this.patience) {
        this.log(`the board folder did not come back within ${this.patience} s: leaving. The game so far (${this.gid}): ${this.moves.join('') || '-'}`);
        throw new Leave(5);
      }
    }
    this.log(`the board folder ${this.board.folder} is back: the game goes on`);
    if (m) this.pending.push(m);
    if (this.rec) this.save();
  }

  replaced() {                                                 // I6: another run took our name
    this.log(`another run of ${this.me} has joined this board and taken over (${visible(this.board.lastError, 200)}): this one stops and sends nothing more`);
    this.stopped = true;
    throw new Leave(6);
  }

  // -- the record (D1-D3) ---------------------------------------------------------------------
  save() {
    if (this.held || this.holdUnsigned) return;              // D6a: the board keeps what this side cannot judge yet
    const r = this.rec;
    r.moves = this.moves.join('');
    r.mode = this.mode || 'full';
    if (this.rules.over() && r.status === 'playing') { const [b, w] = this.rules.count(); r.status = 'over'; r.result = `${b}-${w}`; }
    try { this.records.save(r); this.saveFailed = false; } catch (e) {
      if (!this.saveFailed) this.log(`the game record could not be saved: ${visible(e.message, 200)}`);
      this.saveFailed = true;
    }
  }

  loadRecord(id) {                                            // a record that can be used, or null
    try {
      return this.records.load(id);
    } catch (e) {
      if (!(e instanceof Untrusted || e instanceof Damaged)) {
        this.log(`the record of game ${visible(id, 80)} was not used: ${visible(e.message, 200)}`);
        return null;
      }
      if (e instanceof Untrusted && !this.secretShared) {      // D6a: this side's secret may be the wrong one
        this.log(`the record of game ${id} is not signed with this side's secret (${visible(e.message, 200)}): ` +
                 `left alone until ${this.other} shows it has the same secret`);
        this.held = [id, e];
        this.setAsideGame = this.claimed(id, e);
        return null;
      }
      this.setRecordAside(id, e);
    }
    return null;
  }

  // D6: the board the game of a record not used goes on at: the one it claimed, else ours
  claimed(id, e) { return e.size ? [id, e.size, e.shape || ''] : [id, this.wantSize || 8, this.wantShape || '']; }

  setRecordAside(id, e) {
    if (e.text !== undefined) {                               // D6a: rewritten since it was judged? judged again
      let now = null;
      try { now = this.records.read(this.records.file(id)); } catch (x) { now = null; }
      if (now !== e.text) {
        try {
          this.records.load(id);
          this.log(`the record of game ${id} was replaced since it was judged: it is sound now`);
          return;
        } catch (x) {
          if (!(x instanceof Untrusted || x instanceof Damaged)) return;
          e = x;
        }
      }
    }
    const where = this.records.setAside(id);                   // D6
    this.setAsideGame = this.claimed(id, e);
    this.log(`the record of game ${id} on the board ${e instanceof Untrusted ? 'cannot be trusted' : 'is damaged'}: ` +
             `${visible(e.message, 200)}; it was set aside (${where || 'not moved'}) and is not used`);
  }

  // Start (or resume) game `id` of `size` (and `shape`, H2a) from the plies `list`; `old`: its record, if any
  startGame(id, size, list, old = undefined, shape = '') {
    this.gid = id;
    this.shape = shape;
    this.rules = this.replayed(list, size, shape);
    this.moves = list.slice();
    if (old === undefined) old = this.loadRecord(id);
    if (old) {
      this.recordedName = old[this.me];
      if (!this.nameGiven) this.name = old[this.me];
      if (!this.theirNameKnown) { this.theirName = old[this.other]; this.theirNameKnown = true; }
    }
    this.rec = old || newRecord(id, size, '', '', shape);
    this.rec[this.me] = this.name;
    this.rec[this.other] = this.theirName;
    this.acked = false;
    this.endShown = false;
    this.save();
  }

  // H5, G6: the game of records/current this run offers: unfinished, or ended without the
  // opponent's result; null for a new game
  resumable() {
    const id = this.records.currentId();
    const cur = id ? this.loadRecord(id) : null;
    if (!cur) {
      if (this.setAsideGame && !this.newGame && this.wants(this.setAsideGame[1], this.setAsideGame[2])) {
        // D6: the game goes on with the plies the opponent's greeting brings (H5), or anew
        this.log(`game ${this.setAsideGame[0]} goes on from the moves ${this.other} still has; if it has none, it starts again from the first move`);
        return Object.assign(newRecord(this.setAsideGame[0], this.setAsideGame[1], '', '', this.setAsideGame[2]), { recovered: true });
      }
      return null;
    }
    if (cur.status === 'playing') {
      if (!this.newGame && this.wants(cur.size, cur.shape)) return cur;   // (plies + other board: refused at start)
      // not resumed: a game without plies may be the one black has just proposed: only black,
      // which makes its own, closes it; white asks for a new game only instead of one with plies
      if (cur.moves || this.colour === 0) this.abandon(cur, this.me);
      if (this.newGame && cur.moves) this.askNew = cur.id;
      return null;
    }
    if (ENDED.has(cur.status) && cur.mode === 'full' && !this.records.acknowledged(cur.id, this.me)) {
      this.resumedEnd = true;
      return cur;
    }
    return null;
  }

  // D6a: a message signed with our secret came from the opponent: a record held is set aside now
  secretIsShared() {
    if (this.secretShared) return;
    this.secretShared = true;
    const held = this.held;
    this.held = null;
    if (held) {
      this.setRecordAside(...held);
      if (this.rec) this.save();
    }
  }

  // D6a: an unsigned message came from the opponent and this side has no secret either
  nobodySigns() {
    if (!this.holdUnsigned) return;
    this.holdUnsigned = false;
    if (this.rec) this.save();
  }

  begin() {
    if (!this.hasSecret && !this.newGame) {                   // D6a: a signed unfinished game is not written yet
      let cur = null;
      try { const id = this.records.currentId(); cur = id ? this.records.load(id) : null; } catch (e) { cur = null; }
      if (cur && cur.status === 'playing' && cur.mac) this.holdUnsigned = true;
    }
    const resume = this.resumable();
    if (resume) {
      this.startGame(resume.id, resume.size, splitTranscript(resume.moves), resume.recovered ? null : resume, resume.shape);
      if (this.resumedEnd) this.log(`game ${resume.id} has ended (${visible(resume.result, 40)}), but ${this.other} has not confirmed the end yet: offering it again`);
      else if (this.moves.length) this.log(`resuming game ${resume.id} at move ${this.moves.length + 1} (${resume.size}x${resume.size}, ${this.other}: ${visible(this.theirName, NAME_LIMIT)}); the game comes from the board's record`);
      if (this.recordedName !== null && this.recordedName !== this.name) this.log(`your name in this game is now ${visible(this.name, NAME_LIMIT)} (it was ${visible(this.recordedName, NAME_LIMIT)})`);
    } else if (this.colour === 0) {
      this.startGame('js-' + token(), this.wantSize || 8, [], null, this.wantShape || '');
    } else {
      this.gid = null;
      this.rec = null;
    }
  }

  // -- H9: control lines only to an opponent that has shown it speaks them --------------------
  // (a greeting from its current run, or its alive record with that run and a non-empty state)
  memberRun() { try { return this.board.memberRun(this.other); } catch (e) { return null; } }
  joined() { try { return !!this.board.memberRun(this.other) && !this.board.left(this.other); } catch (e) { return false; } }   // H6: not a run that ended

  shown() {
    const run = this.memberRun();
    if (!run) return false;
    if (this.greeted.has(run)) return true;
    let a = null;
    try { a = this.board.alive ? this.board.alive(this.other) : null; } catch (e) { a = null; }
    return !!a && a.run === run && !!String(a.state || '').trim();
  }

  speaks() { return this.mode === 'full' ? true : this.mode === 'classic' ? false : this.shown(); }

  // a control line (P4) to an opponent that speaks them; `retry`: until delivered. True when sent
  controlTo(verb, f = {}, retry = true) {
    if (!this.speaks()) return false;
    if (retry) { this.send(control(verb, f)); return true; }
    return this.trySend(control(verb, f));
  }

  // -- H6: classic mode: bare squares, passes not sent, no control line ----------------------
  goClassic(run) {
    // H6c: a classic program knows only the plain 8x8 board: another one is refused, said why
    const size = this.gid === null ? (this.wantSize || 8) : this.rules.n;
    const shape = this.gid === null ? (this.wantShape || '') : this.shape;
    if (size !== 8 || shape) this.refuse('classic_board', { other: this.other, shape: shape ? `a ${size}x${size} shape` : `${size}x${size}` });
    this.mode = 'classic';
    this.bound = run;
    this.shaken = true;
    if (this.gid === null) this.startGame('js-' + token(), this.wantSize || 8, [], undefined, this.wantShape || '');
    else if (this.moves.length) { this.bound = null; this.classicStartedAgain(run); }   // H6b: this peer notes no
    else this.save();                                          // classic run: a resumed game is not the program's
    this.log(`${this.other} speaks the classic protocol (bare coordinates only): classic mode`);
  }

  // the classic game follows the opponent's member run: a new run plays a new game (H6b), one
  // that shows it speaks control lines gets our greeting (the numbered form, H6)
  followClassic() {
    if (this.mode !== 'classic' || now() < this.nextFollow) return;
    this.nextFollow = now() + 1;
    const run = this.memberRun();
    if (!run) return;
    if (run !== this.bound) this.classicStartedAgain(run);
    if (!this.helloToClassic.has(run) && this.shown()) { this.helloToClassic.add(run); this.send(this.hello()); }
  }

  // H6b: a classic program keeps no record: its new run plays a new game from the start; ours is
  // closed as abandoned and a new one begins (our last move is never sent again)
  classicStartedAgain(run) {
    this.bound = run;
    if (!this.moves.length) return;
    this.log(`${this.other} started again: a classic program keeps no record, so it plays a new game; ` +
             `game ${this.gid} (next move ${this.moves.length + 1}) is closed as abandoned`);
    const r = this.rec;
    r.status = 'abandoned';
    r.result = `abandoned by ${this.other}`;
    try { this.records.save(r); } catch (e) { this.log(`game ${r.id} could not be closed: ${visible(e.message, 200)}`); }
    this.startGame('js-' + token(), 8, [], null, '');
  }

  // D1: an unfinished game closed because a new one starts instead (`by`: the colour that did it)
  abandon(r, by) {
    if (!r || r.status !== 'playing') return;
    r.status = 'abandoned';
    r.result = `abandoned by ${by}`;
    try { this.records.save(r); } catch (e) { this.log(`game ${r.id} could not be closed: ${visible(e.message, 200)}`); }
    if (!r.moves) return;
    const n = (splitTranscript(r.moves) || []).length + 1;
    if (by === this.me) this.log(`game ${r.id} (${r.size}x${r.size}, next move ${n}) is closed as abandoned; a new game starts`);
    else this.log(`${by} started a new game: game ${r.id} (${r.size}x${r.size}, next move ${n}) is closed as abandoned`);
  }

  // D1: a refused game is closed as refused, unless it has plies and was refused for a reason
  // about the programs (or by the other side, key null: its sender decides)
  closeRefused(key, reason) {
    const r = this.rec;
    if (!r || r.status !== 'playing') return;
    if (this.moves.length && (key === null || PROGRAM_REASONS.has(key))) return;
    r.status = 'refused';
    r.result = `refused: ${reason}`.slice(0, 300);
    this.save();
  }

  refusedByThem(msg) {
    this.log(`refused: ${visible(msg.f.reason, 300)}`);
    this.closeRefused(null, String(msg.f.reason || ''));
    throw new Leave(3);
  }

  // refuse the game (H4, H7): tell the other side (if it speaks control lines), say why here, exit code 3
  refuse(key, o = {}) {
    const reason = REASONS[key] ? REASONS[key](o) : key;
    this.controlTo('refuse', { reason }, false);
    this.log(`cannot play: ${visible(reason, 300)}`);
    this.closeRefused(key, reason);
    throw new Leave(3);
  }

  // whether a game on this board is what the command line asked for (--shape; --size: its size only)
  wants(size, shape) {
    if (this.wantShape !== null) return size === this.wantSize && shape === this.wantShape;
    return !this.wantSize || size === this.wantSize;
  }

  hello() {
    const f = { v: 1, role: this.me, name: this.name, kind: 'computer' };
    if (this.colour === 0) {
      f.size = this.rules.n;
      if (this.shape) Object.assign(f, { v: 2, shape: this.shape });          // H2a
      Object.assign(f, { game: this.gid, moves: this.moves.join('') });
    } else {
      if (this.wantSize) f.size = this.wantSize;
      if (this.wantShape) Object.assign(f, { v: 2, shape: this.wantShape });
      if (this.gid !== null) Object.assign(f, { game: this.gid, moves: this.moves.join('') });
      else if (this.askNew) f.new = 1;                          // H2: do not resume; black starts anew
    }
    return control('hello', f);
  }

  welcome() {
    return control('welcome', { v: 1, role: 'white', name: this.name, kind: 'computer', game: this.gid, moves: this.moves.join('') });
  }

  // -- who sent it (H7, H8) -----------------------------------------------------------------
  isMemberRun(run) {                                          // the opponent's current run on the board?
    let current;
    try { current = this.board.memberRun(this.other); } catch (e) { return true; }   // no news: checked again later
    return current !== null && current !== undefined && current === run;
  }

  greetingRun(run) { return (this.bound === null || run !== this.bound) && this.isMemberRun(run); }

  // Messages the board refused (A3): during the first handshake, the opponent's own run refused
  // for its MAC means the secrets differ: refuse the game (H7). Otherwise shown and ignored.
  checkRejected() {
    let list = [];
    try { list = this.board.takeRejected ? this.board.takeRejected() : []; } catch (e) { list = []; }
    for (const r of list) {
      const sender = String(r.sender || '');
      const reason = String(r.reason || '');
      // once the game is bound, never: member records are not signed, "its current run" is a claim (A6)
      if (sender.toLowerCase() === this.other && this.hasSecret && this.bound === null && this.greetingRun(r.senderRun)) {
        if (reason.startsWith('no MAC')) this.refuse('no_secret_there', { other: this.other });
        if (reason.startsWith('wrong MAC')) this.refuse('other_secret', { other: this.other });
      }
      this.log(`a message claiming to be from ${visible(sender, NAME_LIMIT)} was refused: ${visible(reason, 200)}`);
    }
  }

  otherRun(m) {                                               // H8: shown (a few per run), not applied
    const n = this.foreignShown.get(m.senderRun) || 0;
    if (n >= 5) return;
    this.foreignShown.set(m.senderRun, n + 1);
    this.log(`'${visible(m.body, 80)}' from another run of ${this.other}, not the one that joined this game, was ignored.`);
  }

  // The next message from the other side (or null)
  next(timeout) {
    if (this.pending.length) return this.pending.shift();
    const m = this.board.wait(timeout);
    this.checkRejected();
    if (!m) { if (this.board.problem) this.checkBoard(); return null; }
    if (String(m.sender).toLowerCase() !== this.other) {
      this.log(`ignored a message from ${visible(m.sender, NAME_LIMIT)}`);
      return null;
    }
    if (this.hasSecret && m.signed) this.secretIsShared();
    else if (!this.hasSecret && !m.signed) this.nobodySigns();
    return m;
  }

  // -- greetings (H2-H5) ------------------------------------------------------------------------
  basics(m, msg) {                                            // checks of any greeting
    if (!this.hasSecret && m.signed) return ['no_secret_here', { other: this.other }];
    const v = msg.f.v;
    if (v !== '1' && v !== '2') return ['bad_version', { v: visible(v || '?', 20) }];
    return null;
  }

  // [problem, rules]: problem is null or [reason key, values]; rules the greeting's transcript
  // replayed (or null when it carries none). Nothing in a greeting is used before this.
  greetingCheck(m, msg) {
    const basic = this.basics(m, msg);
    if (basic) return [basic, null];
    const f = msg.f;
    const hasGame = has(f, 'game');
    if (hasGame || msg.kind === 'welcome' || this.colour === 1) {
      if (!checkGameId(f.game)) return [['bad_game_id', { id: visible(f.game === undefined ? '' : f.game, 80) }], null];
    }
    let size = this.rules.n, shape = this.shape;
    const shaped = f.v === '2' && has(f, 'shape');            // H2a: read in a v=2 greeting only
    if (has(f, 'size') || shaped || this.colour === 1) {
      const theirs = this.greetingBoard(f);
      if (theirs.problem) return [theirs.problem, null];
      const { size: n, shape: code } = theirs;
      if (this.colour === 0 && msg.kind === 'hello' && n !== this.rules.n) return [['size_wanted', { theirs: n, mine: this.rules.n }], null];
      if (this.colour === 0 && msg.kind === 'hello' && shaped && code !== this.shape) {
        return [['shape_wanted', { theirs: boardName(n, code), mine: boardName(this.rules.n, this.shape) }], null];
      }
      if (this.colour === 1 && this.wantSize && n !== this.wantSize) return [['size_proposed', { theirs: n, mine: this.wantSize }], null];
      if (this.colour === 1 && this.wantShape !== null && code !== this.wantShape) {
        return [['shape_proposed', { theirs: boardName(n, code), mine: boardName(this.wantSize, this.wantShape) }], null];
      }
      if (this.colour === 1) { size = n; shape = code; }      // black's board; black replays on its own
    }
    if (!has(f, 'moves') || !hasGame) return [null, null];
    const list = splitTranscript(f.moves);
    const r = list === null ? 'not a transcript' : this.replayed(list, size, shape);
    if (typeof r === 'string') return [['bad_moves', { moves: visible(f.moves, 60), reason: visible(r, 200) }], null];
    return [null, { rules: r, moves: list }];
  }

  // The board a greeting names (H2, H2a): { size, shape } (the code, '' plain), or { problem }
  greetingBoard(f) {
    const size = parseSize(f.size || '8');
    if (size === null) return { problem: ['bad_size', { size: visible(f.size, 20) }] };
    if (!(f.v === '2' && has(f, 'shape'))) return { size, shape: '' };
    try { return { size, shape: parseShape(f.shape, size) }; } catch (e) {
      return { problem: ['bad_shape', { reason: visible(e.message.replace(/^bad board shape: /, ''), 200) }] };
    }
  }

  // A greeting that cannot be used: in a handshake refuse (and stop), else answer `refused`
  badGreeting(m, problem, strict) {
    const [key, o] = problem;
    if (strict) this.refuse(key, o);
    const reason = REASONS[key](o);
    this.log(`${visible(this.theirName, NAME_LIMIT)}'s greeting was not applied: ${visible(reason, 200)}`);
    this.controlTo('refused', { move: m.body.slice(0, 200), reason }, false);
  }

  takeName(msg) {
    const name = Array.from(String(msg.f.name || this.other)).slice(0, NAME_LIMIT).join('');   // code points (P5)
    if (this.theirNameKnown && name !== this.theirName) {
      this.log(`${this.other} is now called ${visible(name, NAME_LIMIT)} (it was ${visible(this.theirName, NAME_LIMIT)})`);
    }
    this.theirName = name;
    this.theirNameKnown = true;
    if (this.rec) this.rec[this.other] = name;
  }

  // Replay a transcript from the start on a board of `size` (`shape`): the new Rules, or an error text
  replayed(list, size, shape = this.shape) {
    const r = new Rules(size, shape);
    try {
      for (const t of list) r.play(r.parse(t));
    } catch (e) { return e.message; }
    return r;
  }

  // H5: our transcript and theirs must agree (one a prefix of the other); take the longer
  adopt(theirs) {
    if (theirs === null) return true;
    const n = Math.min(theirs.moves.length, this.moves.length);
    if (theirs.moves.slice(0, n).join(',') !== this.moves.slice(0, n).join(',')) return false;
    if (theirs.moves.length > this.moves.length) {
      // H5b: plies this side did not see played are announced as moves are
      const from = this.moves.length;
      this.log(`${theirs.moves.length - from} move(s) from ${visible(this.theirName, NAME_LIMIT)}'s copy of the game, from move ${from + 1} (this side had not seen them):`);
      const r = this.replayed(theirs.moves.slice(0, from), theirs.rules.n);
      for (const t of theirs.moves.slice(from)) {
        const mine = r.turn === this.colour;
        this.log(mine ? `${t}: your move, as ${visible(this.theirName, NAME_LIMIT)}'s side has it` : `${visible(this.theirName, NAME_LIMIT)} played ${t}`);
        r.play(r.parse(t));
      }
      this.rules = theirs.rules; this.moves = theirs.moves.slice(); this.save();
    }
    return true;
  }

  bind(m) {
    if (this.bound !== null && m.senderRun !== this.bound) this.log(`${this.other} restarted: the game goes on with its new run`);
    this.bound = m.senderRun;
    this.shaken = true;
    this.mode = 'full';
    this.save();
  }

  blackGreeting(m, msg, strict) {                             // black gets a hello or a welcome
    if (msg.kind === 'welcome' && msg.f.game !== this.gid) {
      const basic = this.basics(m, msg);
      if (basic) this.badGreeting(m, basic, strict);
      return;                                                 // a welcome to an older hello
    }
    const [problem, theirs] = this.greetingCheck(m, msg);
    if (problem) return this.badGreeting(m, problem, strict);
    this.takeName(msg);
    if (msg.kind === 'hello') {                               // answer a (re)started white
      if (msg.f.new === '1' && !has(msg.f, 'game') && (this.moves.length || this.ended())) {
        this.log(`${this.other} asked for a new game (--new)`);
        this.abandon(this.rec, this.other);
        if (this.wantShape !== null || this.wantSize) this.startGame('js-' + token(), this.wantSize, [], null, this.wantShape || '');
        else this.startGame('js-' + token(), this.rules.n, [], null, this.shape);
      }
      this.send(this.hello());
      return;
    }
    if (!this.adopt(theirs)) this.refuse('records_differ');
    this.bind(m);
  }

  acceptBlack(m, msg, strict) {                               // white gets black's hello
    const [problem, theirs] = this.greetingCheck(m, msg);
    if (problem) return this.badGreeting(m, problem, strict);
    const { size, shape } = this.greetingBoard(msg.f);      // (sound: greetingCheck passed)
    const gid = msg.f.game;
    if (this.askNew && gid === this.askNew) return;           // black has not seen our new=1 yet (H2)
    this.takeName(msg);
    if (this.gid !== null && gid === this.gid && (size !== this.rules.n || shape !== this.shape)) this.refuse('records_differ');
    if (this.gid === null || gid !== this.gid) {              // a new game, or one this board has a record of (H5)
      const old = this.loadRecord(gid);
      if (old && (old.size !== size || old.shape !== shape)) this.refuse('records_differ');
      if (old && old.status !== 'playing' && !ENDED.has(old.status)) {
        return this.badGreeting(m, ['game_closed', { id: visible(gid, 80), status: visible(old.status, 20) }], strict);
      }
      if (this.gid !== null) this.abandon(this.rec, this.other);   // H5: black started a new game instead
      this.askNew = null;
      this.startGame(gid, size, old && (old.status === 'playing' || ENDED.has(old.status)) ? splitTranscript(old.moves) : [], old, shape);
    }
    if (!this.adopt(theirs)) this.refuse('records_differ');
    this.bind(m);
    this.send(this.welcome());
  }

  // One message from the other side, during the handshake or the game
  handle(m) {
    const msg = parse(m.body);
    if (msg.kind === 'junk') return;                          // P5
    if ((msg.kind === 'hello' || msg.kind === 'welcome') && this.isMemberRun(m.senderRun)) this.greeted.add(m.senderRun);
    if (!this.shaken) {                                       // section 13
      if (!this.isMemberRun(m.senderRun)) return this.otherRun(m);
      if (m.signed && !this.hasSecret) this.refuse('no_secret_here', { other: this.other });
      if (msg.kind === 'move' && msg.n === null) {              // H6: a bare move before any greeting
        this.goClassic(m.senderRun);
        return this.theirMove(m, msg);
      }
      if (msg.kind === 'hello' || msg.kind === 'welcome') {
        if (this.colour === 0) return this.blackGreeting(m, msg, true);
        if (msg.kind === 'hello') return this.acceptBlack(m, msg, true);
        return;
      }
      if (msg.kind === 'refuse') return this.refusedByThem(msg);
      if (msg.kind === 'say') this.log(`${visible(this.theirName, NAME_LIMIT)} says: ${visible(msg.f.text, 300)}`);
      return;
    }
    if (m.senderRun !== this.bound && this.mode === 'classic' && this.isMemberRun(m.senderRun)) {
      this.classicStartedAgain(m.senderRun);                   // a classic game follows the member run (H6b, H8)
    }
    if (m.senderRun !== this.bound) {                         // H8
      if (!this.isMemberRun(m.senderRun)) return this.otherRun(m);
      if (msg.kind === 'hello') {                             // its new run: a restart
        if (this.leftAt) { this.leftAt = null; this.log(`${visible(this.theirName, NAME_LIMIT)} is back`); }
        return this.colour === 0 ? this.blackGreeting(m, msg, true) : this.acceptBlack(m, msg, true);
      }
      if (msg.kind === 'welcome' && this.colour === 0) return this.blackGreeting(m, msg, true);
      return this.otherRun(m);
    }
    switch (msg.kind) {
      case 'move': return this.theirMove(m, msg);
      case 'resign': return this.theyResigned();
      case 'result': return this.theirResult(msg);
      case 'bye': this.leftAt = now(); this.log(`${visible(this.theirName, NAME_LIMIT)} left (it may come back)`); return;
      case 'refuse': return this.refusedByThem(msg);
      case 'refused': this.log(`${this.other} refused ${visible(msg.f.move, 40)}: ${visible(msg.f.reason, 200)}`); return;
      case 'say': this.log(`${visible(this.theirName, NAME_LIMIT)} says: ${visible(msg.f.text, 300)}`); return;
      case 'hello': return this.colour === 0 ? this.blackGreeting(m, msg, false) : this.acceptBlack(m, msg, false);
      case 'welcome': if (this.colour === 0 && msg.f.game === this.gid) this.blackGreeting(m, msg, false); return;
      default: return;
    }
  }

  refusedMove(echo, reason) {                                 // G2: refused (only shown to a classic program)
    this.log(`${visible(this.theirName, NAME_LIMIT)} sent '${visible(echo, 80)}', refused: ${visible(reason, 200)}`);
    this.controlTo('refused', { move: echo, reason });
  }

  theirMove(m, msg) {                                          // G2
    this.leftAt = null;
    const expected = this.moves.length + 1;
    const echo = m.body.slice(0, 200);
    if (msg.n !== null && msg.n < expected) return;            // a duplicate
    if (msg.n !== null && msg.n > expected) return this.refusedMove(echo, `move ${msg.n} arrived but ${expected} was expected`);
    if (this.rules.turn === this.colour || this.rules.over()) return this.refusedMove(echo, 'not your turn');
    try {
      const sq = this.rules.parse(msg.square);
      if (sq < 0 && this.mode === 'classic') throw new Error('a classic program does not send its passes');
      this.rules.play(sq);
    } catch (e) { return this.refusedMove(echo, e.message); }
    this.moves.push(msg.square);
    this.save();
  }

  myMove() {                                                   // G1: applied and saved, then sent
    const legal = this.rules.moves();
    const sq = legal.length ? legal[0] : -1;
    this.rules.play(sq);
    this.moves.push(this.rules.name(sq));
    this.save();
    if (this.mode === 'classic') { if (sq >= 0) this.send(this.rules.name(sq)); }   // G3: passes not sent
    else this.send(`${this.rules.name(sq)} #${this.moves.length} t=0`);
  }

  theirClassicPass() {                                         // G3: a classic opponent's pass, applied here
    this.rules.play(-1);
    this.moves.push('pass');
    this.save();
    this.log(`${this.other} has no legal move and passes`);
  }

  // -- the end (G4, G6) ---------------------------------------------------------------------
  ended() { return (this.rec !== null && ENDED.has(this.rec.status)) || this.rules.over(); }

  theyResigned() {
    if (this.rec.status === 'resigned') return;                // said again after a restart (G6)
    this.rec.status = 'resigned';
    this.rec.result = `${this.other} resigned`;
    this.save();
    this.log(`${this.other} resigned`);
  }

  theirResult(msg) {                                           // G6: the acknowledgement of the end
    if (!this.ended() || (has(msg.f, 'game') && msg.f.game !== this.gid) || this.acked) return;
    this.acked = true;
    try { this.records.acknowledge(this.gid, this.me); } catch (e) { this.log(`the acknowledgement could not be noted: ${visible(e.message, 200)}`); }
  }

  sendEnd() {
    if (this.rec.status === 'resigned' && this.rec.result.startsWith(this.me)) this.controlTo('resign');
    const [b, w] = this.rules.count();
    this.controlTo('result', { black: b, white: w, game: this.gid });
  }

  // G4, G6: show the end, send ours, wait (at most ACK_WAIT s after our last sending) for the
  // opponent's result; true when done with the game, false when a new game replaced it (H5)
  finish() {
    if (!this.endShown) {
      this.endShown = true;
      const [b, w] = this.rules.count();
      if (this.rec.status === 'resigned') this.log(`game over: ${visible(this.rec.result, 40)}`);
      else this.log(`game over: black ${b} - white ${w}`);
    }
    if (this.mode !== 'full') return true;
    let sentTo = null;
    let sentAt = now();
    while (!(this.acked && sentTo !== null)) {
      if (!this.ended()) return false;
      if (sentTo !== this.bound) { this.sendEnd(); sentTo = this.bound; sentAt = now(); continue; }
      this.beat();
      const m = this.next(0.2);
      if (m) this.handle(m);
      try { this.checkPresence(); } catch (e) {
        if (!(e instanceof Leave) || e.code !== 4) throw e;
        break;                                                 // the opponent stayed away: ended all the same
      }
      if (!this.acked && now() - sentAt > ACK_WAIT) {
        this.log(`${this.other} did not confirm the end within ${ACK_WAIT} s: the game will be offered again next time`);
        break;
      }
    }
    return true;
  }

  run() {
    this.board.quiet();
    this.begin();
    // H1, H9: greet once the opponent shows it speaks control lines, every 2 s until it answers;
    // H6: black plays classic when white joined but shows nothing, or does not answer, in time
    let joinedAt = this.joined() ? now() : null;
    let greetedAt = null;
    let nextHello = 0;
    let nextLook = 0;
    while (!this.shaken) {                                     // section 13
      this.beat();
      const m = this.next(0.2);
      if (m) { this.handle(m); continue; }
      const t = now();
      if (t >= nextLook) {
        nextLook = t + 0.5;
        if (joinedAt === null && this.joined()) joinedAt = t;
        if (joinedAt !== null && t >= nextHello && this.shown()) {
          if (this.trySend(this.hello()) && greetedAt === null) greetedAt = t;
          nextHello = t + 2;
        }
      }
      const since = greetedAt !== null ? greetedAt : joinedAt;
      if (this.colour === 0 && since !== null && t - since > this.classicAfter) this.goClassic(this.memberRun());
    }
    this.log(`game ${this.gid} on ${this.rules.n}x${this.rules.n} as ${this.me}`);
    for (;;) {                                                 // section 14
      if (this.ended()) { if (this.finish()) return 0; continue; }
      this.beat();
      this.followClassic();
      this.checkPresence();
      if (this.rules.turn === this.colour) {
        // G2: what waits when our turn begins was sent before our move: judged now (out of turn);
        // a forced pass of ours first (G3a: a classic opponent's next move follows it at once)
        if (this.rules.moves().length) for (let m = this.next(0); m; m = this.next(0)) this.handle(m);
        if (this.rules.turn === this.colour && !this.ended()) this.myMove();
        continue;
      }
      if (this.mode === 'classic' && !this.rules.moves().length) { this.theirClassicPass(); continue; }
      const m = this.next(0.5);
      if (m) { this.handle(m); continue; }
      if (this.leftAt && now() - this.leftAt > this.patience) { this.log(`${this.other} did not come back within ${this.patience} s: leaving`); return 4; }
    }
  }
}

// F2c: why a folder named by mistake (one's own files) must not be made a board, or '' when it
// may (missing, empty, a board, or only a board's own names, hidden ones, a README, *.tmp)
const BOARD_NAMES = new Set(['cardstand.board', 'cardstand.id', 'box', 'tmp', 'trash', 'records']);
const HOUSEKEEPING = new Set(['desktop.ini', 'thumbs.db', 'readme.md', 'readme.txt']);
function unfitForABoard(folder) {
  if (!folder) return "the board folder's name is empty: name a folder";
  let names;
  try { names = fs.readdirSync(folder); } catch (e) {
    if (e.code === 'ENOTDIR') return `${visible(folder, 200)} is a file, not a folder: name a new or empty folder for the board`;
    return '';                                                 // missing (made by Init), or for Init to report
  }
  if (names.includes('cardstand.board')) return '';
  const foreign = names.filter((n) => !BOARD_NAMES.has(n) && !n.startsWith('.') && !HOUSEKEEPING.has(n.toLowerCase()) && !n.endsWith('.tmp')).sort();
  if (!foreign.length) return '';
  const shown = foreign.slice(0, 3).map((n) => visible(n, 40)).join(', ') + (foreign.length > 3 ? ', ...' : '');
  return `${visible(folder, 200)} is not a board (it has no cardstand.board) and holds other files (${shown}): ` +
         'name a new or empty folder, and a board is made there';
}

function play(a) {
  const colour = a.color === 'white' ? 1 : 0;
  const unfit = unfitForABoard(a.board === undefined ? '' : String(a.board));
  if (unfit) throw new InvalidArgument(unfit);
  const secret = loadSecret(a['secret-file'] || null);
  let wantSize = a.size === undefined ? null : parseSize(String(a.size));
  if (a.size !== undefined && wantSize === null) throw new InvalidArgument(`bad board size ${a.size}`);
  let wantShape = null;                                      // --shape: a code (rows joined by /) or a picture file
  if (a.shape !== undefined) {
    let code = String(a.shape);
    if (!code.includes('/') || fs.existsSync(code)) {
      code = fs.readFileSync(code, 'utf8').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('# ')).join('/');
    }
    const n = code.split('/').length;
    try { wantShape = parseShape(code, n); } catch (e) { throw new InvalidArgument(`--shape: ${e.message}`); }
    if (wantSize !== null && wantSize !== n) throw new InvalidArgument(`--size ${wantSize} and --shape (${n}x${n}) disagree`);
    wantSize = n;
  }
  const classicAfter = a['classic-after'] === undefined ? 10 : parseFloat(a['classic-after']);
  const patience = a.patience === undefined ? 120 : parseFloat(a.patience);
  if (!(patience > 0)) throw new InvalidArgument(`bad --patience ${a.patience}: a number of seconds`);
  const board = new Board(a.board, colour ? 'white' : 'black', { secret });
  const records = new Records(board);
  // H5: a --size other than the unfinished game's is refused before the board is touched
  const cur = a.new === undefined && wantSize ? records.current() : null;
  if (cur && cur.status === 'playing' && cur.moves && (cur.size !== wantSize || (wantShape !== null && cur.shape !== wantShape))) {
    const n = (splitTranscript(cur.moves) || []).length + 1;
    const option = wantShape !== null ? '--shape' : '--size';
    process.stdout.write(`An unfinished game is on this board: ${cur.id}, ${boardName(cur.size, cur.shape)}, ` +
      `${visible(cur.black, NAME_LIMIT)} (black) vs ${visible(cur.white, NAME_LIMIT)} (white), next move ${n}. ` +
      `${option} ${wantShape !== null ? boardName(wantSize, wantShape) : wantSize} would start another game: start without ${option} to resume this one, or with --new ` +
      'to close it (abandoned) and start a new game.\n');
    return 2;
  }
  try { board.join(!!a['take-over']); } catch (e) {
    if (!(e instanceof MemberBusy)) throw e;
    const f = e.member || {};
    process.stdout.write(`${board.name} is already playing on this board: pid ${visible(f.pid || '?', 20)} on ` +
      `${visible(f.host || '?', 64)}${f.machine ? ` (machine ${visible(f.machine, 100)})` : ''}, ${e.how}. Only one ` +
      `program may play ${board.name}. If that program is truly gone (its computer frozen or cut off), start ` +
      'again with --take-over.\n');
    return 2;
  }
  const p = new Player(board, colour, { name: a.name === undefined ? null : a.name, wantSize, wantShape, records,
                                        newGame: a.new !== undefined, classicAfter, patience });
  try { return p.run(); } catch (e) {
    if (e instanceof Leave) return e.code;
    throw e;
  } finally { board.close(); }                                      // acknowledges the last message (M5)
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
  process.stderr.write('usage: node peer.js serve --board DIR --name NAME | play --board DIR --color black|white ' +
    '[--size N | --shape CODE|FILE] [--name NAME] [--new] [--patience S] [--take-over] [--secret-file FILE]\n');
  return 2;
}

module.exports = { parse, control, quote, unquote, splitTranscript, checkGameId, Rules, parseShape, Player, Leave, Records,
                   parseRecord, recordText, recordMac, checkRecordMac, verifyRecord, escapeValue, unescapeValue };

if (require.main === module) process.exitCode = main();
