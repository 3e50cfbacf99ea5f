#!/usr/bin/env node
'use strict';
// Seeded random fuzzing of everything in interop/js that reads text from the board:
// the control-line decoder (parse, unquote, splitTranscript, checkGameId), the message file
// parser (unframe), visible(), and the game's handlers (Player.handle) fed with thousands of
// generated bodies, including mutations of real messages. P5: hostile lines are never fatal.
//
//   node interop/js/test/fuzz.js [--seed N] [--rounds N]
//
// Exits 1 (printing the seed, the case and the stack) at the first exception that is not an
// expected one (Leave for the player, Damaged/Rejected for unframe), or when a line printed
// for a person carries a raw control or bidi character.

const path = require('path');
const cs = require(path.join(__dirname, '..', 'cardstand.js'));
const peer = require(path.join(__dirname, '..', 'peer.js'));

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf('--' + name); return i >= 0 ? parseInt(argv[i + 1], 10) : dflt; };
const SEED = opt('seed', 20261122);
const ROUNDS = opt('rounds', 1);

function rng(seed) {                                             // mulberry32
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
let R = rng(SEED);
const int = (n) => Math.floor(R() * n);
const pick = (a) => a[int(a.length)];
const chance = (p) => R() < p;

const ATOMS = ['', ' ', '  ', '=', '==', '%', '%%', '%2', '%zz', '%ZZ', '%00', '%0A', '%0D%0A', '%1B]0;pwn%07', '%E2%80',
  '%E2%80%AE', '%FF', '%C0%80', '%F0%9F%80%84', '%25', '%3D', '%20', '\u0000', '\n', '\r', '\t', '\u001b[31m', '\u0085',
  '\u202e', '\u2066', '\u061c', '\u00a0', '\u3000', '\ufeff', '\ud800', '\udfff', 'é', '日本', '🀄', '#', '#5', '#0',
  '#99999999999999999999999', 't=', 't=5', 't=999999999999999999999', 'pass', 'PASS', 'Pass', 'a1', 'z9', 'f5', 'A1',
  'a99', 'f5d6c3', 'zz', '..', '../', '..%2F..%2Fx', '%2Fetc%2Fpasswd', '/abs', 'C:\\x', 'con', 'x'.repeat(261),
  '9'.repeat(40), '-1', '1e9', 'NaN', 'Infinity', '0x10', '08', '8', '4', '26', '28', '7', 'abc', 'true', 'null',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '{}', '[]'];
const KEYS = ['v', 'role', 'name', 'size', 'shape', 'game', 'moves', 'reason', 'move', 'text', 'black', 'white', 'n', 't',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'V', 'x'];
const VERBS = ['hello', 'welcome', 'refuse', 'refused', 'resign', 'bye', 'say', 'result', 'HELLO', 'nope', ''];

function value() {
  const n = int(4);
  let s = '';
  for (let i = 0; i <= n; i++) s += chance(0.5) ? pick(ATOMS) : String.fromCharCode(int(chance(0.8) ? 128 : 0x3000));
  return s;
}
function transcript() {
  const legal = ['f5', 'd6', 'c3', 'd3', 'c4', 'f4', 'f6', 'e6', 'pass', 'a1', 'zz', 'h8', 'e3'];
  let s = '';
  for (let i = int(12); i > 0; i--) s += pick(legal);
  return s;
}
function controlLine(realish) {
  const verb = realish ? pick(VERBS.slice(0, 8)) : pick(VERBS);
  const parts = ['#cardstand', verb];
  for (let i = int(7); i > 0; i--) {
    const k = pick(KEYS);
    let v = k === 'moves' && chance(0.5) ? transcript() : k === 'v' && chance(0.6) ? '1' : value();
    if (chance(0.6)) v = peer.quote(v);
    parts.push(chance(0.05) ? k : `${k}=${v}`);
  }
  return parts.join(chance(0.95) ? ' ' : pick(['  ', '\t', ' \u00a0']));
}
const REAL = [
  '#cardstand hello v=1 role=black name=Alice size=8 game=20261122-0455-ab12cd moves=',
  '#cardstand hello v=1 role=black name=Alice size=8 game=g1 moves=f5d6c3',
  '#cardstand hello v=2 role=black name=Alice size=8 shape=..%23%23%23%23../...%23%23.../%23%23....%23%23/%23%23%23OX%23%23%23/%23%23%23XO%23%23%23/%23%23....%23%23/...%23%23.../..%23%23%23%23.. game=g1 moves=',
  '#cardstand hello v=2 role=black name=Alice size=6 shape=%23%23%23%23%23%23/%23....%23/%23.OX.%23/%23.XO.%23/%23....%23/%23%23%23%23%23%23 game=g2 moves=',
  '#cardstand hello v=1 role=white name=Bob',
  '#cardstand welcome v=1 role=white name=Bob game=g1 moves=f5d6',
  '#cardstand refuse reason=protocol%20version%202%20is%20not%20supported',
  '#cardstand refused move=a1%20%231 reason=a1%20flips%20nothing',
  '#cardstand say text=hello%20%E3%81%93%E3%82%93%E3%81%AB%E3%81%A1%E3%81%AF',
  '#cardstand resign', '#cardstand bye', '#cardstand result black=36 white=28',
  'd3', 'd3 #5 t=120', 'pass #6', 'f5 #1', 'e6 #2 t=0', 'F5', 'c4 #3',
];
function mutate(s) {
  let a = Array.from(s);
  for (let i = 1 + int(4); i > 0; i--) {
    const at = int(a.length + 1);
    switch (int(7)) {
      case 0: a.splice(at, 1); break;
      case 1: a.splice(at, 0, pick(ATOMS)); break;
      case 2: a.splice(at, 0, String.fromCharCode(int(0x110))); break;
      case 3: a = a.slice(0, at); break;
      case 4: a.splice(at, 0, ...a.slice(int(a.length), int(a.length) + 8)); break;
      case 5: if (a.length) a[int(a.length)] = pick(['%', '=', ' ', '#', '0', 'z', '\u0000']); break;
      default: a.splice(at, 0, value());
    }
  }
  return a.join('');
}
function body() {
  switch (int(6)) {
    case 0: return value();
    case 1: return controlLine(false);
    case 2: return controlLine(true);
    case 3: return mutate(pick(REAL));
    case 4: return pick(REAL);
    default: return pick(['', ' ', 'pass', `${String.fromCharCode(97 + int(26))}${int(30)}${chance(0.5) ? ' #' + int(80) : ''}`, '#cardstand', mutate(controlLine(true))]);
  }
}

const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
let cases = 0;
const stats = { players: 0, shaken: 0, plies: 0, leaves: 0 };
function fail(what, detail, e) {
  process.stderr.write(`FUZZ FAILURE (seed ${SEED}, case ${cases}): ${what}\n  input: ${JSON.stringify(detail).slice(0, 2000)}\n`);
  if (e) process.stderr.write(`  ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
}

// 1. the decoder and its helpers
function fuzzDecoder(n) {
  for (let i = 0; i < n; i++, cases++) {
    const b = body();
    try {
      const m = peer.parse(b);
      if (!m || typeof m.kind !== 'string') fail('parse gave no kind', b);
      for (const k of Object.keys(m.f || {})) String(m.f[k]);
      peer.unquote(b);
      peer.splitTranscript(b);
      peer.checkGameId(b);
      const v = cs.visible(b, chance(0.5) ? int(50) : null);
      if (RAW.test(v)) fail('visible() left a raw control character', b);
      peer.control('say', { text: b });
    } catch (e) { fail('decoder threw', b, e); }
  }
}

// 2. the message file parser
function fuzzUnframe(n) {
  const secret = Buffer.from('fuzz secret');
  for (let i = 0; i < n; i++, cases++) {
    const signed = chance(0.5);
    const data = Buffer.from(body(), 'utf8');
    let raw = cs.frame(pick(['black', 'white', 'kit']), 'r' + int(9), 'white', 'run', 1 + int(3), data, signed ? secret : null);
    if (chance(0.8)) {
      const s = mutate(raw.toString('latin1'));
      raw = Buffer.from(s, chance(0.5) ? 'latin1' : 'utf8');
    }
    for (const key of [null, 'white']) {
      try { cs.unframe(raw, chance(0.5) ? null : 1 + int(3), key, chance(0.5) ? secret : null); } catch (e) {
        if (!(e instanceof cs.Damaged) && !(e instanceof cs.Rejected)) fail('unframe threw something else', raw.toString('latin1'), e);
      }
    }
  }
}

// 3. the game's handlers, on a board that exists only in memory
class FakeBoard {
  constructor(secret) { this.secret = secret; this.sent = []; this.queue = []; this.rejected = []; this.current = 'run-a'; }
  memberRun(name) {
    cs.checkName(name);
    if (this.current === 'throw') throw new Error('EIO: the share failed a read');
    return this.current;
  }
  send(to, b) {
    cs.checkName(to);
    if (typeof b !== 'string') throw new Error('a body that is not text');
    if (Buffer.byteLength(b, 'utf8') > 65536) throw new cs.InvalidArgument('too long');
    this.sent.push(b);
    return true;
  }
  wait() { return this.queue.shift() || null; }
  takeRejected() { const r = this.rejected; this.rejected = []; return r; }
  beat() {}
  quiet() { return 0; }
}
function fuzzPlayer(n) {
  for (let i = 0; i < n; i++) {
    const colour = int(2);
    const other = colour ? 'black' : 'white';
    const board = new FakeBoard(chance(0.3) ? Buffer.from('s') : null);
    const logged = [];
    const p = new peer.Player(board, colour, { name: 'fz', size: pick([8, 8, 8, 4, 6, 10]), log: (s) => logged.push(s) });
    const runs = ['run-a', 'run-b', undefined, ''];
    const greet = () => colour
      ? `#cardstand hello v=1 role=black name=x size=${p.rules.n} game=g${int(3)} moves=${chance(0.5) ? '' : transcript()}`
      : `#cardstand welcome v=1 role=white name=y game=${p.gid} moves=${chance(0.7) ? '' : transcript()}`;
    const steps = 1 + int(80);
    let m = null;
    try {
      for (let s = 0; s < steps; s++, cases++) {
        let b = s === 0 && chance(0.7) ? greet() : chance(0.3) ? greet() : body();
        if (chance(0.5) && p.shaken) b = `${p.rules.name(pick(p.rules.moves(1 - colour).concat(chance(0.1) ? [-1] : [])))} #${p.moves.length + (chance(0.8) ? 1 : int(3))}${chance(0.5) ? ' t=' + int(999) : ''}`;
        m = { sender: chance(0.9) ? other : pick(['mallory', other.toUpperCase(), 'kit']), senderRun: s === 0 || chance(0.6) ? 'run-a' : pick(runs),
              signed: chance(0.2), body: b, seq: s, toRun: 'me' };
        if (chance(0.05)) board.current = pick(['run-a', 'run-a', 'run-b', null, 'throw']);
        if (chance(0.1)) board.rejected.push({ sender: pick([other, 'x\u001b[2J']), senderRun: pick(runs), seq: s, reason: pick(['no MAC', 'wrong MAC', '']) });
        if (chance(0.5)) { board.queue.push(m); const got = p.next(0); if (got) p.handle(got); } else p.handle(m);
        if (p.shaken && !p.rules.over() && p.rules.turn === colour && chance(0.7)) p.myMove();
      }
    } catch (e) {
      if (!(e instanceof peer.Leave)) fail('the player threw', m, e);
      stats.leaves++;
    }
    stats.players++;
    if (p.shaken) stats.shaken++;
    stats.plies += p.moves.length;
    for (const line of logged) if (RAW.test(line)) fail('a raw control character reached the screen', line);
    for (const b of board.sent) if (peer.parse(b).kind === 'junk' && !/^(pass|[a-z][0-9]{1,2}) #[0-9]+ t=0$/.test(b)) fail('sent a body that is junk', b);
  }
}

const t0 = Date.now();
for (let r = 0; r < ROUNDS; r++) {
  R = rng(SEED + r);
  fuzzDecoder(20000);
  fuzzUnframe(5000);
  fuzzPlayer(3000);
}
process.stdout.write(`fuzz: ${cases} cases, seed ${SEED}, no failure (${((Date.now() - t0) / 1000).toFixed(1)} s; ` +
  `${stats.players} players, ${stats.shaken} past the handshake, ${stats.plies} plies played, ${stats.leaves} left with an exit code)\n`);
