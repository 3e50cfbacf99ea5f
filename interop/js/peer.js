#!/usr/bin/env node
'use strict';
// A second, independent peer on plain Node.js, written from docs/PROTOCOL.md.
//
//   node peer.js serve --board DIR --name NAME [--stale-after S] [--lock-timeout S]
//   node peer.js play  --board DIR --color black|white [--size N] [--name NAME]
//
// 'serve' answers the conformance kit's JSON requests; 'play' plays one game
// (the first legal move, in row-major order) and exits 0 when it ends.

const fs = require('fs');
const { Board, InvalidArgument, sleep, now, token } = require('./cardstand.js');

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
                                      lockTimeout: parseFloat(a['lock-timeout'] || '10') });
  } catch (e) { say({ ok: false, error: e.message }); return 2; }
  for (const line of lines()) {
    if (!line.trim()) continue;
    let ans;
    try {
      const req = JSON.parse(line);
      switch (req.op) {
        case 'init': me.join(); ans = { ok: true }; break;
        case 'quiet': ans = { ok: true, result: me.quiet() }; break;
        case 'talk': { const r = me.talk(req.to || '', req.body || ''); ans = { ok: true, result: r[0], sender: r[1], body: r[2], error: me.lastError }; break; }
        case 'send': ans = { ok: true, result: me.send(req.to, req.body || '') ? 1 : 0, error: me.lastError }; break;
        case 'recv': { const m = me.receive(); ans = { ok: true, result: m ? 2 : (me.lastError ? 0 : -1), sender: m ? m.sender : '', body: m ? m.body : '', error: me.lastError }; break; }
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
    if (sq < 0) { if (this.moves().length || this.over()) throw new Error('you cannot pass: there is a legal move'); this.turn ^= 1; return; }
    if (this.cells[sq] !== -1) throw new Error(`${this.name(sq)} is already taken`);
    const f = this.flips(sq, this.turn);
    if (!f.length) throw new Error(`${this.name(sq)} flips nothing`);
    for (const s of f) this.cells[s] = this.turn;
    this.cells[sq] = this.turn;
    this.turn ^= 1;
  }
  name(sq) { return sq < 0 ? 'pass' : String.fromCharCode(97 + sq % this.n) + (Math.floor(sq / this.n) + 1); }
  parse(t) {
    t = t.toLowerCase();
    if (t === 'pass') return -1;
    const m = /^([a-z])([0-9]{1,2})$/.exec(t);
    if (!m) throw new Error(`not a square: ${t}`);
    const x = m[1].charCodeAt(0) - 97, y = parseInt(m[2], 10) - 1;
    if (x >= this.n || y < 0 || y >= this.n) throw new Error(`${t} is off the board`);
    return y * this.n + x;
  }
  count() { let b = 0, w = 0; for (const c of this.cells) { if (c === 0) b++; else if (c === 1) w++; } return [b, w]; }
}

// -- game messages (P3, P4) --------------------------------------------------------------------
function control(verb, f = {}) {
  return ['#cardstand', verb, ...Object.entries(f).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)].join(' ');
}
function parse(body) {
  const m = /^\s*([A-Za-z][0-9]{1,2}|pass|PASS|Pass)\s*(?:#([0-9]+))?\s*(?:t=([0-9]+))?\s*$/.exec(body);
  if (m) return { kind: 'move', square: m[1].toLowerCase(), n: m[2] === undefined ? null : parseInt(m[2], 10) };
  const w = body.trim().split(' ');
  const verbs = ['hello', 'welcome', 'refuse', 'refused', 'resign', 'bye', 'say', 'result'];
  if (w.length >= 2 && w[0] === '#cardstand' && verbs.includes(w[1])) {
    const f = {};
    for (const kv of w.slice(2)) {
      const i = kv.indexOf('=');
      if (i <= 0) return { kind: 'junk' };
      try { f[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { return { kind: 'junk' }; }
    }
    return { kind: w[1], f };
  }
  return { kind: 'junk' };
}
function splitTranscript(t) { return (t || '').toLowerCase().match(/pass|[a-z][0-9]{1,2}/g) || []; }

function play(a) {
  const colour = a.color === 'white' ? 1 : 0;
  const me = colour ? 'white' : 'black', other = colour ? 'black' : 'white';
  const board = new Board(a.board, me).join();
  board.quiet();
  const log = (s) => process.stdout.write(s + '\n');
  let rules = new Rules(parseInt(a.size || '8', 10));
  let moves = [];
  let gid = null;
  let lastBeat = 0;
  const beat = () => { if (now() - lastBeat > 1) { board.beat(rules.turn === colour ? 'thinking' : 'waiting'); lastBeat = now(); } };
  const send = (body) => { while (!board.send(other, body)) { beat(); sleep(200); } };
  const replay = (list, size) => {                         // H5: take a longer transcript
    const r = new Rules(size);
    for (const t of list) r.play(r.parse(t));
    rules = r; moves = list.slice();
  };
  const refuse = (reason) => { board.send(other, control('refuse', { reason })); log(`cannot play: ${reason}`); process.exit(3); };

  // -- handshake (section 13)
  if (colour === 0) gid = 'js-' + token();
  const hello = () => colour === 0
    ? control('hello', { v: 1, role: 'black', name: a.name || 'js', size: rules.n, game: gid, moves: moves.join('') })
    : control('hello', { v: 1, role: 'white', name: a.name || 'js' });
  board.send(other, hello());
  let nextHello = now() + 2;
  for (let done = false; !done;) {
    beat();
    const m = board.wait(0.2);
    if (!m) { if (now() > nextHello) { board.send(other, hello()); nextHello = now() + 2; } continue; }
    const msg = parse(m.body);
    if (msg.kind === 'hello' || msg.kind === 'welcome') {
      if (msg.f.v !== '1') refuse(`protocol version ${msg.f.v} is not supported (this program speaks 1)`);
      if (colour === 0) {
        if (msg.kind === 'hello') { send(hello()); continue; }
        if (msg.f.game !== gid) continue;
        done = true;
      } else if (msg.kind === 'hello') {
        const size = parseInt(msg.f.size || '8', 10);
        if (!(size >= 4 && size <= 26 && size % 2 === 0)) refuse(`bad board size ${msg.f.size}`);
        gid = msg.f.game;
        try { replay(splitTranscript(msg.f.moves), size); } catch (e) { refuse(`bad transcript: ${e.message}`); }
        send(control('welcome', { v: 1, role: 'white', name: a.name || 'js', game: gid, moves: moves.join('') }));
        done = true;
      }
    } else if (msg.kind === 'refuse') { log(`refused: ${msg.f.reason}`); process.exit(3); }
  }
  log(`game ${gid} on ${rules.n}x${rules.n} as ${me}`);

  // -- moves (section 14)
  let leftAt = null;
  while (!rules.over()) {
    beat();
    if (rules.turn === colour) {
      const legal = rules.moves();
      const sq = legal.length ? legal[0] : -1;
      rules.play(sq);
      moves.push(rules.name(sq));
      send(`${rules.name(sq)} #${moves.length} t=0`);
      continue;
    }
    const m = board.wait(0.5);
    if (!m) { if (leftAt && now() - leftAt > 60) { log('the other side left'); process.exit(4); } continue; }
    const msg = parse(m.body);
    if (msg.kind === 'move') {
      leftAt = null;
      const expected = moves.length + 1;
      if (msg.n !== null && msg.n < expected) continue;                       // a duplicate
      if (msg.n !== null && msg.n > expected) { send(control('refused', { move: m.body, reason: `move ${msg.n} arrived but ${expected} was expected` })); continue; }
      try { rules.play(rules.parse(msg.square)); } catch (e) {
        send(control('refused', { move: m.body, reason: e.message }));
        continue;
      }
      moves.push(msg.square);
    } else if (msg.kind === 'resign') { log(`${other} resigned`); return 0; }
    else if (msg.kind === 'bye') leftAt = now();
    else if (msg.kind === 'refuse') { log(`refused: ${msg.f.reason}`); return 3; }
    else if (msg.kind === 'hello') {
      if (colour === 0) send(hello());
      else send(control('welcome', { v: 1, role: 'white', name: a.name || 'js', game: gid, moves: moves.join('') }));
    } else if (msg.kind === 'welcome' && msg.f.game === gid) {
      const theirs = splitTranscript(msg.f.moves);
      if (theirs.length > moves.length && theirs.slice(0, moves.length).join() === moves.join()) replay(theirs, rules.n);
    }
  }
  const [b, w] = rules.count();
  board.send(other, control('result', { black: b, white: w }));
  log(`game over: black ${b} - white ${w}`);
  return 0;
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
  process.stderr.write('usage: node peer.js serve --board DIR --name NAME | play --board DIR --color black|white\n');
  return 2;
}

process.exitCode = main();
