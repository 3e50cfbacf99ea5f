'use strict';
// The message board of docs/PROTOCOL.md (part 1) on plain Node.js: no packages.
// Written from the protocol document alone; clause numbers in comments.

const fs = require('fs');
const path = require('path');
const os = require('os');
const crypto = require('crypto');

const VERSION = 1;
const RECORD = 256;
const MAX_BODY = 65536;
const MAX_UNREAD = 1000;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
const RESERVED = new Set(['con', 'prn', 'aux', 'nul']);
for (let i = 1; i <= 9; i++) { RESERVED.add('com' + i); RESERVED.add('lpt' + i); }
const HOST = (os.hostname() || 'host').slice(0, 24);
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms) { if (ms > 0) Atomics.wait(SLEEPER, 0, 0, ms); }
function now() { return Number(process.hrtime.bigint()) / 1e9; }   // monotonic seconds (L3)
function token() { return crypto.randomBytes(8).toString('hex'); }

class InvalidArgument extends Error {}
class LockTimeout extends Error {}

function checkName(name, what = 'name') {                            // N1
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    throw new InvalidArgument(`invalid ${what} ${JSON.stringify(name)}: use 1-32 letters, digits, '-' or '_'`);
  }
  if (RESERVED.has(name.toLowerCase())) throw new InvalidArgument(`invalid ${what} ${name}: a Windows device name`);
  return name;
}

function encodeBody(body) {                                          // N3
  if (typeof body !== 'string') throw new InvalidArgument('message body must be text');
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/.test(body)) {
    throw new InvalidArgument('message body is not valid Unicode');
  }
  const data = Buffer.from(body, 'utf8');
  if (data.length > MAX_BODY) throw new InvalidArgument(`message body is ${data.length} bytes; the limit is ${MAX_BODY}`);
  return data;
}

function record(text) {                                              // R1
  const b = Buffer.from(text, 'utf8');
  if (b.length >= RECORD) throw new Error('record too long');
  return Buffer.concat([b, Buffer.alloc(RECORD - 1 - b.length, 0x20), Buffer.from('\n')]);
}

const PASSING = new Set(['EIO', 'EBUSY', 'EAGAIN', 'EACCES', 'EPERM']);  // a share's passing errors

function readBytes(p) {                                              // B3: open by name
  for (let i = 0; ; i++) {
    try { return fs.readFileSync(p); } catch (e) {
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null;
      if (!PASSING.has(e.code) || i >= 4) throw e;
      sleep(10 * (i + 1));
    }
  }
}
function readText(p) { const b = readBytes(p); return b === null ? null : b.toString('utf8'); }
function readInt(p) {                                                 // R3
  let t;
  try { t = readText(p); } catch (e) { return 0; }
  if (t === null) return 0;
  t = t.trim();
  return /^[0-9]+$/.test(t) ? parseInt(t, 10) : 0;
}
function fields(text) {
  const f = {};
  for (const line of (text || '').split('\n')) {
    const i = line.indexOf(': ');
    if (i > 0) f[line.slice(0, i)] = line.slice(i + 2).trim();
  }
  return f;
}
function exists(p) { try { fs.lstatSync(p); return true; } catch (e) { return false; } }
function present(p) {                                                // B3: by opening, not a cached stat
  try { fs.closeSync(fs.openSync(p, 'r')); return true; } catch (e) {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return false;
    return exists(p);
  }
}
function remove(p) { try { fs.unlinkSync(p); return true; } catch (e) { return false; } }
function removeTree(p) { try { fs.rmSync(p, { recursive: true, force: true }); } catch (e) { /* later */ } }

function writeScratch(dir, data, durable) {                          // B2
  const p = path.join(dir, `${HOST}-${process.pid}-${token()}.tmp`);
  const fd = fs.openSync(p, 'wx');
  try {
    fs.writeSync(fd, data);
    if (durable) fs.fsyncSync(fd);
  } finally { fs.closeSync(fd); }                                    // B4
  return p;
}
function replaceWith(dir, target, data, durable) {                   // R2
  const t = writeScratch(dir, data, durable);
  // SMB refuses to replace a file another client has open: retry briefly
  for (let i = 0; ; i++) {
    try { fs.renameSync(t, target); return; } catch (e) {
      if (i >= 20 || !['EEXIST', 'EBUSY', 'EACCES', 'EPERM', 'EIO', 'EAGAIN'].includes(e.code)) { remove(t); throw e; }
      sleep(Math.min(10 * (i + 1), 50));
    }
  }
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32(buf) {
  let c = 0xFFFFFFFF;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >>> 8);
  return (c ^ 0xFFFFFFFF) >>> 0;
}

function msgName(seq) { return String(seq).padStart(12, '0') + '.msg'; }

function frame(sender, senderRun, to, toRun, seq, data) {            // M1
  const head = `cardstand-msg ${VERSION}\nfrom: ${sender}\nfrom-run: ${senderRun}\nto: ${to}\n` +
    `to-run: ${toRun}\nseq: ${seq}\nlength: ${data.length}\ncrc32: ${crc32(data).toString(16).padStart(8, '0')}\n\n`;
  return Buffer.concat([Buffer.from(head, 'ascii'), data]);
}

function unframe(raw) {                                              // M1, M4
  const end = raw.indexOf('\n\n');
  if (end < 0) throw new Error('no header end');
  const lines = raw.slice(0, end).toString('latin1').split('\n');
  if (lines[0] !== `cardstand-msg ${VERSION}`) throw new Error('not a version-1 message');
  const f = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(': ');
    if (i <= 0) throw new Error('bad header line');
    f[line.slice(0, i)] = line.slice(i + 2);
  }
  const data = raw.slice(end + 2);
  if (!/^[0-9]+$/.test(f.length || '') || parseInt(f.length, 10) !== data.length) throw new Error('wrong length');
  if (!/^[0-9a-f]{8}$/.test(f.crc32 || '') || parseInt(f.crc32, 16) !== crc32(data)) throw new Error('checksum mismatch');
  checkName(f.from);
  const body = new TextDecoder('utf-8', { fatal: true }).decode(data);
  return { sender: f.from, body, seq: parseInt(f.seq, 10), toRun: f['to-run'] || '', senderRun: f['from-run'] || '' };
}

class Lease {                                                        // section 5
  constructor(folder, scratch, staleAfter, who) {
    this.path = path.join(folder, 'lock');
    this.scratch = scratch;
    this.staleAfter = staleAfter;
    this.who = who;
    this.token = null;
    // L3: what the lock looked like and since when, kept across acquire() calls
    this.seen = null;
    this.since = 0;
  }

  signature(p = this.path) {
    let owner;
    try { owner = readBytes(path.join(p, 'owner')); } catch (e) { return ['<unreadable>', '']; }
    if (owner === null && !exists(p)) return null;
    let beat = null;
    try { beat = readBytes(path.join(p, 'beat')); } catch (e) { return ['<unreadable>', '']; }
    return [owner ? owner.toString('base64') : '', beat ? beat.toString('base64') : ''];
  }

  // A share may answer a read with an error now and then: read again for up to 2 s.
  settledSignature(p = this.path) {
    const giveUp = now() + 2;
    let delay = 10;
    for (;;) {
      const sig = this.signature(p);
      if (!sig || sig[0] !== '<unreadable>' || now() >= giveUp) return sig;
      sleep(delay);
      delay = Math.min(delay * 2, 200);
    }
  }

  ownerToken(sig) { return sig ? fields(Buffer.from(sig[0], 'base64').toString('utf8')).token : undefined; }

  tryTake() {                                                        // L1
    const tok = token();
    const mine = path.join(this.scratch, 'lock-' + tok);
    fs.mkdirSync(mine);
    fs.writeFileSync(path.join(mine, 'owner'), record(
      `cardstand-lock 1\ntoken: ${tok}\nname: ${this.who}\nhost: ${HOST}\nmachine: \npid: ${process.pid}`));
    try { fs.renameSync(mine, this.path); } catch (e) { /* B5: read back */ }
    if (this.ownerToken(this.settledSignature()) === tok) { this.token = tok; return true; }
    removeTree(mine);
    return false;
  }

  // L5/L6 where the folder cannot be renamed (SMB, when the client lost track of a file it
  // opened inside): move the owner record aside, check it, delete the rest.
  dismantle(owner64, label) {
    const aside = path.join(this.scratch, label + '-owner');
    if (owner64) {
      try { fs.renameSync(path.join(this.path, 'owner'), aside); } catch (e) { return false; }
      let moved = null;
      try { moved = readBytes(aside); } catch (e) { moved = null; }
      if (!moved || moved.toString('base64') !== owner64) {
        try { fs.renameSync(aside, path.join(this.path, 'owner')); } catch (e) { /* its holder will notice */ }
        return false;
      }
    }
    try { fs.unlinkSync(path.join(this.path, 'beat')); } catch (e) { /* none */ }
    try { fs.rmdirSync(this.path); } catch (e) { /* an empty lock folder is judged like any other */ }
    removeTree(aside);
    return true;
  }

  breakStale(sig) {                                                  // L5
    const aside = path.join(this.scratch, 'stale-' + token());
    try { fs.renameSync(this.path, aside); } catch (e) {
      if (e.code !== 'ENOENT' && sig[0] !== '<unreadable>') this.dismantle(sig[0], path.basename(aside));
      return;
    }
    const moved = this.settledSignature(aside);
    if (!moved || moved[0] !== sig[0] || moved[1] !== sig[1]) {
      try { fs.renameSync(aside, this.path); } catch (e) { /* its holder will notice */ }
      return;
    }
    removeTree(aside);
  }

  acquire(timeout) {                                                 // L3, L4
    const deadline = now() + timeout;
    let delay = 0.5;
    for (;;) {
      if (this.tryTake()) return true;
      const sig = this.signature();
      const t = now();
      if (sig) {
        // a read error is no news: it neither changes nor resets the observation
        const seen = this.seen;
        if (!seen || (sig[0] !== '<unreadable>' && (sig[0] !== seen[0] || sig[1] !== seen[1]))) {
          this.seen = sig; this.since = t;
        } else if (t - this.since >= this.staleAfter) { this.breakStale(seen); this.seen = null; continue; }
      }
      if (t >= deadline) return false;
      sleep(Math.min(delay, (deadline - t) * 1000));
      delay = Math.min(delay * 2, 10);
    }
  }

  isMine() { return this.token !== null && this.ownerToken(this.settledSignature()) === this.token; }

  release() {                                                        // L6
    if (this.token === null) return;
    const sig = this.settledSignature();
    if (this.ownerToken(sig) === this.token) {
      const aside = path.join(this.scratch, 'released-' + this.token);
      // SMB refuses to rename a folder while another client reads a file in it (for a moment),
      // or for good once its own client lost track of an open file inside: after two
      // refusals, also try taking the lock apart (L5a)
      for (let i = 0; i < 30; i++) {
        try { fs.renameSync(this.path, aside); removeTree(aside); break; } catch (e) {
          if (e.code === 'ENOENT') break;
        }
        if (i >= 2 && this.dismantle(sig[0], path.basename(aside))) break;
        sleep(Math.min(10 * (i + 1), 50));
      }
    }
    this.token = null;
  }
}

class Board {
  constructor(folder, name, { staleAfter = 10, lockTimeout = 10 } = {}) {
    this.name = checkName(name);
    this.key = name.toLowerCase();
    this.folder = folder;
    this.box = path.join(folder, 'box');
    this.mine = path.join(this.box, this.key);
    this.tmp = path.join(folder, 'tmp');
    this.trash = path.join(folder, 'trash');
    this.lockTimeout = lockTimeout;
    this.lease = new Lease(folder, this.tmp, staleAfter, this.key);
    this.run = null;
    this.lastError = '';
    this.beats = 0;
  }

  join() {                                                           // F2, I1
    fs.mkdirSync(this.folder, { recursive: true });
    const marker = path.join(this.folder, 'cardstand.board');
    const m = readText(marker);
    if (m === null) replaceWith(this.folder, marker, Buffer.from(`cardstand-board ${VERSION}\n`), true);
    else {
      const w = m.trim().split(/\s+/);
      if (w.length !== 2 || w[0] !== 'cardstand-board' || !/^[0-9]+$/.test(w[1])) throw new Error(`${marker} is not a cardstand board marker`);
      if (parseInt(w[1], 10) !== VERSION) throw new Error(`board of protocol version ${w[1]}; this program speaks ${VERSION}`);
    }
    for (const d of [this.box, this.tmp, this.trash]) fs.mkdirSync(d, { recursive: true });
    this.cleanScratch();
    const run = token();
    this.withLock(() => {
      fs.mkdirSync(this.mine, { recursive: true });
      replaceWith(this.tmp, path.join(this.mine, 'member'), record(
        `cardstand-member ${VERSION}\nname: ${this.name}\nrun: ${run}\nhost: ${HOST}\npid: ${process.pid}`), true);
      const tail = readInt(path.join(this.mine, 'tail'));            // G2
      for (const e of fs.readdirSync(this.mine)) {
        const mm = /^([0-9]{12})\.msg$/.exec(e);
        if (mm && parseInt(mm[1], 10) <= tail) remove(path.join(this.mine, e));
      }
    });
    this.run = run;
    return this;
  }

  cleanScratch() {                                                   // G1: the share's clock
    try {
      const probe = writeScratch(this.tmp, Buffer.alloc(0), false);
      const nowShare = fs.statSync(probe).mtimeMs;
      remove(probe);
      for (const e of fs.readdirSync(this.tmp)) {
        const p = path.join(this.tmp, e);
        try { if (nowShare - fs.lstatSync(p).mtimeMs > 600e3) removeTree(p); } catch (err) { /* gone */ }
      }
    } catch (e) { /* skip */ }
  }

  withLock(fn) {
    if (!this.lease.acquire(this.lockTimeout)) throw new LockTimeout(`the board lock was not obtained within ${this.lockTimeout} s`);
    try { return fn(); } finally { this.lease.release(); }
  }

  oldest() {                                                         // M4
    const tail = readInt(path.join(this.mine, 'tail'));
    const head = readInt(path.join(this.mine, 'head'));
    for (let k = tail + 1; ; k++) {
      const p = path.join(this.mine, msgName(k));
      const raw = readBytes(p);
      if (raw === null) {
        if (k <= head) continue;
        if (k - 1 !== tail) replaceWith(this.tmp, path.join(this.mine, 'tail'), record(String(k - 1)), false);
        return null;
      }
      try { return { seq: k, msg: unframe(raw) }; } catch (e) {
        const dest = path.join(this.trash, `${token()}-${this.key}-${msgName(k)}`);
        try { fs.renameSync(p, dest); } catch (err) { remove(p); }
      }
    }
  }

  consume(seq) {                                                     // M5
    replaceWith(this.tmp, path.join(this.mine, 'tail'), record(String(seq)), false);
    remove(path.join(this.mine, msgName(seq)));
  }

  deliver(to, data) {                                                // M2, M3
    checkName(to, 'recipient');
    const rbox = path.join(this.box, to.toLowerCase());
    const member = readText(path.join(rbox, 'member'));
    if (member === null) return `${to} has not joined this board`;
    const toRun = fields(member).run;
    if (!toRun) return `the mailbox of ${to} is damaged`;
    const head = readInt(path.join(rbox, 'head'));
    const tail = readInt(path.join(rbox, 'tail'));
    if (head - tail >= MAX_UNREAD) return `the mailbox of ${to} is full`;
    let k = Math.max(head, tail) + 1;
    while (present(path.join(rbox, msgName(k)))) k++;
    const framed = frame(this.name, this.run, to, toRun, k, data);
    const target = path.join(rbox, msgName(k));
    const scratch = writeScratch(this.tmp, framed, true);
    try {
      if (!this.lease.isMine()) return 'lost the board lock before delivering';
      try { fs.renameSync(scratch, target); } catch (e) {
        const back = readBytes(target);
        if (!back || !back.equals(framed)) return `could not deliver to ${to}: ${e.message}`;
      }
    } finally { remove(scratch); }
    try { replaceWith(this.tmp, path.join(rbox, 'head'), record(String(k)), false); } catch (e) { /* a hint */ }
    return '';
  }

  maybeWaiting() {                                                   // M6
    const tail = readInt(path.join(this.mine, 'tail'));
    if (present(path.join(this.mine, msgName(tail + 1)))) return true;
    return readInt(path.join(this.mine, 'head')) > tail;
  }

  talk(to, body) {                                                   // I3
    if (to !== '') checkName(to, 'recipient');
    const data = encodeBody(body);
    if (to === '' && !this.maybeWaiting()) { this.lastError = ''; return [-1, '', '']; }
    let why = '';
    try {
      const r = this.withLock(() => {
        const got = this.oldest();
        if (got) { this.consume(got.seq); return [2, got.msg.sender, got.msg.body]; }
        if (to === '') return [-1, '', ''];
        why = this.deliver(to, data);
        return null;
      });
      if (r) { this.lastError = ''; return r; }
    } catch (e) { if (e instanceof InvalidArgument) throw e; why = e.message; }
    if (why) { this.lastError = why; return [0, '', '']; }
    this.lastError = '';
    return [1, '', ''];
  }

  send(to, body) {                                                   // I4
    checkName(to, 'recipient');
    const data = encodeBody(body);
    let why;
    try { why = this.withLock(() => this.deliver(to, data)); } catch (e) {
      if (e instanceof InvalidArgument) throw e;
      why = e.message;
    }
    this.lastError = why;
    return !why;
  }

  receive() {
    this.lastError = '';
    if (!this.maybeWaiting()) return null;
    try {
      return this.withLock(() => {
        const got = this.oldest();
        if (!got) return null;
        this.consume(got.seq);
        return got.msg;
      });
    } catch (e) { this.lastError = e.message; return null; }
  }

  wait(timeout) {
    const start = now();
    for (;;) {
      const m = this.receive();
      if (m) return m;
      const t = now();
      if (timeout !== undefined && t - start >= timeout) return null;
      sleep(Math.min(1 + (t - start) * 50, 50));
    }
  }

  quiet() {                                                          // I2
    let dropped = 0;
    this.withLock(() => {
      for (;;) {
        const got = this.oldest();
        if (!got || got.msg.toRun === this.run) return;
        this.consume(got.seq);
        dropped++;
      }
    });
    return dropped;
  }

  wipe() {
    let dropped = 0;
    this.withLock(() => { let g; while ((g = this.oldest())) { this.consume(g.seq); dropped++; } });
    return dropped;
  }

  beat(state) {                                                      // P2
    this.beats++;
    try {
      replaceWith(this.tmp, path.join(this.mine, 'alive'), record(
        `cardstand-alive ${VERSION}\nrun: ${this.run}\nbeat: ${this.beats}\nstate: ${state}`), false);
    } catch (e) { /* presence is best effort */ }
  }
}

module.exports = { Board, InvalidArgument, LockTimeout, checkName, sleep, now, token, VERSION };
