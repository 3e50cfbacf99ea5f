/* minimal.c: a cardstand peer of the minimal profile (docs/PROTOCOL.md, "Profiles").
 *
 *   cc -std=c99 -o minimal interop/c/minimal.c
 *   ./minimal play --board DIR --color black|white
 *
 * It plays one game of Othello in classic mode (bare squares, H6) against
 * black.py / white.py or any other peer, then exits 0.  What it does, in the
 * order docs/FIRST-PEER.md builds it (the kit checks each step: --only minimal_board...):
 *   1. the folder: the marker, box/ tmp/ trash/, records (F2 R1)
 *   2. the lock: take, wait, break a stale one, release  (L1 L3 L4 L5 L6)
 *   3. reading; joining: the member record, Quiet        (M1 M4 M5 I1 I1a I2)
 *   4. sending, and receiving from the opponent's run    (M2 M3 L2 H8)
 *   5. moves: bare squares, passes never sent            (P3 G1-G4 G3a)
 * What it leaves out (heartbeats, handshake, records, secret, links...) is
 * listed in PROTOCOL.md's minimal profile.  C99 and POSIX; the few calls
 * Windows names differently are mapped just below.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#ifdef _WIN32
#include <windows.h>
#include <direct.h>
#include <io.h>
#include <process.h>
#define MKDIR(p) _mkdir(p)
#define FSYNC(f) _commit(_fileno(f))
#define GETPID() _getpid()
#define rmdir _rmdir
/* rename() on Windows refuses to replace a file: MoveFileEx does (a folder onto a folder it never does). */
static int replace(const char *from, const char *to) { return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING) ? 0 : -1; }
static double now(void) { return GetTickCount64() / 1000.0; }
static void pause_ms(double ms) { Sleep((DWORD)(ms < 1 ? 1 : ms)); }
static void hostname(char *buf, size_t n) { const char *h = getenv("COMPUTERNAME"); snprintf(buf, n, "%s", h ? h : "windows"); }
#else
#include <unistd.h>
#define MKDIR(p) mkdir(p, 0775)
#define FSYNC(f) fsync(fileno(f))
#define GETPID() getpid()
static int replace(const char *from, const char *to) { return rename(from, to); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void pause_ms(double ms) { struct timespec t = { (time_t)(ms / 1000), (long)((ms - 1000 * (long)(ms / 1000)) * 1e6) }; nanosleep(&t, NULL); }
static void hostname(char *buf, size_t n) { if (gethostname(buf, n) != 0) snprintf(buf, n, "unknown"); buf[n - 1] = 0; }
#endif

#define L_STALE 10.0            /* L: a lock whose owner+beat stay the same this long is stale (section 5) */
#define MAXPATH 4096            /* every path: the board's (at most 1023 bytes) and a name in it */
#define MAXMSG 69632            /* the biggest message file (B7) */

static char board[1024], host[65], me[8], you[8], run[17];

static void die(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "minimal: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(code);
}

/* A path below the board: at(buf, "box/%s/member", me). */
static char *at(char *buf, const char *fmt, ...) {
    char rest[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rest, sizeof rest, fmt, ap);
    va_end(ap);
    snprintf(buf, MAXPATH, "%s/%s", board, rest);
    return buf;
}

/* 16 random hex digits: run ids, lock tokens, scratch names. */
static void token(char out[17]) {
    static int seeded = 0;
    unsigned char b[8];
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(b, 1, 8, f) != 8) {         /* no /dev/urandom (Windows): rand() will do */
        if (!seeded) { srand((unsigned)time(NULL) ^ (unsigned)GETPID() << 8); seeded = 1; }
        for (int i = 0; i < 8; i++) b[i] = (unsigned char)(rand() >> 3);
    }
    if (f) fclose(f);
    for (int i = 0; i < 8; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

/* Up to max bytes of a file, NUL-terminated; -1 when it cannot be read. */
static long slurp(const char *path, char *buf, long max) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    long n = (long)fread(buf, 1, (size_t)max, f);
    fclose(f);
    buf[n] = 0;
    return n;
}

/* B2 R2: a new file appears whole: written in tmp/, flushed, then renamed to its place. */
static int publish(const char *path, const char *data, size_t len) {
    char tok[17], scratch[MAXPATH];
    token(tok);
    at(scratch, "tmp/%s-%d-%s.tmp", host, (int)GETPID(), tok);    /* S1 cleans up *.tmp left by a crash */
    FILE *f = fopen(scratch, "wb");
    if (!f) return -1;
    int ok = fwrite(data, 1, len, f) == len && fflush(f) == 0 && FSYNC(f) == 0;
    ok = fclose(f) == 0 && ok;                  /* B4: closed before it is renamed */
    if (ok && replace(scratch, path) == 0) return 0;
    remove(scratch);
    return -1;
}

/* R1: a record is its lines padded with spaces to 255 bytes, then "\n". */
static int write_record(const char *path, const char *text) {
    char rec[256];
    size_t n = strlen(text);
    if (n > 255) return -1;
    memcpy(rec, text, n);
    memset(rec + n, ' ', 255 - n);
    rec[255] = '\n';
    return publish(path, rec, 256);
}

/* R1: the value of "key: value" in a record (spaces and tabs around it taken off); "" when missing. */
static void record_get(const char *text, const char *key, char *out, size_t max) {
    size_t k = strlen(key);
    out[0] = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, k) == 0 && line[k] == ':' && line[k + 1] == ' ') {
            const char *v = line + k + 2, *e = v;
            while (*e && *e != '\n') e++;
            if (e > v && e[-1] == '\r') e--;
            while (v < e && (*v == ' ' || *v == '\t')) v++;
            while (e > v && (e[-1] == ' ' || e[-1] == '\t')) e--;
            size_t n = (size_t)(e - v) < max - 1 ? (size_t)(e - v) : max - 1;
            memcpy(out, v, n);
            out[n] = 0;
            return;                             /* a key given twice counts with its first value */
        }
    }
}

/* R3: a number record (head, tail); missing or damaged counts as 0 here. */
static long long read_number(const char *path) {
    char buf[4097];
    if (slurp(path, buf, 4096) < 0) return 0;
    char *p = buf;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    long long v = 0;
    int digits = 0;
    while (isdigit((unsigned char)*p) && digits < 13) v = v * 10 + (*p++ - '0'), digits++;
    return digits >= 1 && digits <= 12 ? v : 0;
}

static int exists(const char *path) { struct stat st; return stat(path, &st) == 0; }

/* ---- 1. the folder (F2) ---------------------------------------------------------------------- */

static void open_board(void) {
    char path[MAXPATH], buf[4098];
    MKDIR(board);
    long n = slurp(at(path, "cardstand.board"), buf, 4097);
    if (n < 0) {                                /* no marker: make this folder a board */
        MKDIR(at(path, "tmp"));
        if (publish(at(path, "cardstand.board"), "cardstand-board 1\n", 18) != 0)
            die(2, "cannot write %s: %s", path, strerror(errno));
    } else {                                    /* two words: "cardstand-board" and the version, 1 */
        char *p = buf, *e = buf + n;
        while (p < e && strchr(" \t\r\n", *p)) p++;
        while (e > p && strchr(" \t\r\n", e[-1])) e--;
        *e = 0;
        int ok = n <= 4096 && strncmp(p, "cardstand-board", 15) == 0 && p[15] && strchr(" \t\r\n", p[15]);
        if (ok) {
            p += 15;
            while (*p && strchr(" \t\r\n", *p)) p++;
            ok = strlen(p) >= 1 && strlen(p) <= 9 && strspn(p, "0123456789") == strlen(p) && atol(p) == 1;
        }
        if (!ok) die(2, "%s is not a cardstand board of version 1 (its cardstand.board says otherwise)", board);
    }
    MKDIR(at(path, "box"));
    MKDIR(at(path, "tmp"));
    MKDIR(at(path, "trash"));
}

/* ---- 2. the lock (section 5) ----------------------------------------------------------------- */

static char held[17];                           /* the token of the lock we hold, "" when none */

static void remove_lock_folder(const char *dir) {   /* a lock folder holds owner and beat, nothing else */
    char p[MAXPATH + 8];
    snprintf(p, sizeof p, "%s/owner", dir); remove(p);
    snprintf(p, sizeof p, "%s/beat", dir); remove(p);
    rmdir(dir);                                 /* if something else is inside, S1 removes it later */
}

/* owner + beat as bytes: what L3 watches.  A folder or missing file reads as empty: it never changes. */
static void lock_pair(char *out, size_t max) {
    char path[MAXPATH], a[4097] = "", b[4097] = "";
    if (slurp(at(path, "lock/owner"), a, 4096) < 0) a[0] = 0;
    if (slurp(at(path, "lock/beat"), b, 4096) < 0) b[0] = 0;
    snprintf(out, max, "%s\n--\n%s", a, b);
}

static int lock_is_mine(void) {
    char path[MAXPATH], buf[4097], tok[65];
    if (slurp(at(path, "lock/owner"), buf, 4096) < 0) return 0;
    record_get(buf, "token", tok, sizeof tok);
    return strcmp(tok, held) == 0;
}

/* L1 L3 L4 L5: take the lock, waiting as long as it takes; a holder silent for L seconds is gone. */
static void lock(void) {
    static char seen[8300];                     /* L3: the watch is kept from one lock() to the next */
    static double since = -1;
    char mine[MAXPATH], path[MAXPATH], owner[256], pair[8300];
    double pause = 0.5;
    for (;;) {
        token(held);                            /* L1: a private folder with our owner record, renamed to lock */
        at(mine, "tmp/lock-%s", held);
        if (MKDIR(mine) == 0) {
            snprintf(owner, sizeof owner, "cardstand-lock 1\ntoken: %s\nname: %s\nhost: %s\nmachine: \npid: %d",
                     held, me, host, (int)GETPID());
            at(path, "tmp/lock-%s/owner", held);
            FILE *f = fopen(path, "wb");
            if (f) {
                fprintf(f, "%-255s\n", owner);
                fclose(f);
                rename(mine, at(path, "lock"));     /* whatever it returns, the owner record decides (B5) */
                if (lock_is_mine()) { since = -1; return; }
            }
            remove_lock_folder(mine);
        }
        lock_pair(pair, sizeof pair);           /* L3: note when owner + beat last changed, on our clock */
        if (since < 0 || strcmp(pair, seen) != 0) {
            strcpy(seen, pair);
            since = now();
        } else if (now() - since >= L_STALE && exists(at(path, "lock"))) {
            char stale[MAXPATH], tok[17], moved[8300];      /* L5: move it away, then look at what we moved */
            token(tok);
            at(stale, "tmp/stale-%s", tok);
            if (rename(at(path, "lock"), stale) == 0) {
                char o[4097] = "", b[4097] = "";
                if (slurp(at(path, "tmp/stale-%s/owner", tok), o, 4096) < 0) o[0] = 0;
                if (slurp(at(path, "tmp/stale-%s/beat", tok), b, 4096) < 0) b[0] = 0;
                snprintf(moved, sizeof moved, "%s\n--\n%s", o, b);
                if (strcmp(moved, seen) == 0) remove_lock_folder(stale);
                else rename(stale, at(path, "lock"));   /* it changed meanwhile: put it back (or S1 cleans it) */
            }
            since = -1;
        }
        pause_ms(pause);                        /* 0.5 ms, doubling up to 10 ms */
        pause = pause * 2 > 10 ? 10 : pause * 2;
    }
}

/* L6: release: rename the lock to tmp/released-<our token>, then delete it. */
static void unlock(void) {
    char path[MAXPATH], gone[MAXPATH];
    if (lock_is_mine() && rename(at(path, "lock"), at(gone, "tmp/released-%s", held)) == 0)
        remove_lock_folder(gone);
    held[0] = 0;
}

/* ---- 3. join and quiet (I1 I2) --------------------------------------------------------------- */

static unsigned long crc32(const unsigned char *p, size_t n) {
    unsigned long c = 0xffffffffUL;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0xedb88320UL : c >> 1;
    }
    return c ^ 0xffffffffUL;
}

/* M1 M4: read message file `path`; 1 and its header values and body if it is sound, 0 if not. */
static int read_message(const char *path, long long seq, char *from, char *from_run, char *to_run,
                        char *body, size_t bodymax) {
    static char buf[MAXMSG + 2];
    long n = slurp(path, buf, MAXMSG + 1);
    char *end = strstr(buf, "\n\n"), v[80], len_s[80], crc_s[80], seq_s[80], to[80];
    if (n < 0 || n > MAXMSG || !end || strncmp(buf, "cardstand-msg 1\n", 16) != 0) return 0;
    *end = 0;                                   /* the header ends at the empty line */
    const char *b = end + 2;
    size_t blen = (size_t)(n - (b - buf));
    record_get(buf, "from", from, 40);
    record_get(buf, "from-run", from_run, 80);
    record_get(buf, "to", to, sizeof to);
    record_get(buf, "to-run", to_run, 80);
    record_get(buf, "seq", seq_s, sizeof seq_s);
    record_get(buf, "length", len_s, sizeof len_s);
    record_get(buf, "crc32", crc_s, sizeof crc_s);
    snprintf(v, sizeof v, "%08lx", crc32((const unsigned char *)b, blen));
    if (!from[0] || !from_run[0] || atoll(seq_s) != seq || (size_t)atol(len_s) != blen ||
        strcmp(v, crc_s) != 0)                  /* M1: 8 lower-case hex digits, exactly */
        return 0;
    for (char *c = to; *c; c++) *c = (char)tolower((unsigned char)*c);
    if (strcmp(to, me) != 0) return 0;
    if (blen >= bodymax) blen = bodymax - 1;    /* a move is short: the rest of a long body is not needed */
    memcpy(body, b, blen);
    body[blen] = 0;
    return 1;
}

/* M4 M5 (under the lock): the oldest sound message into `body`; 1 if there was one.  A message is
 * consumed at once (M5d): tail replaced, file deleted.  With `quiet`, only those to other runs (I2). */
static int take_oldest(char *body, size_t max, int quiet, char *from, char *from_run) {
    char path[MAXPATH], num[32], to_run[80];
    long long tail = read_number(at(path, "box/%s/tail", me)), head = read_number(at(path, "box/%s/head", me));
    for (long long k = tail + 1;; k++) {
        at(path, "box/%s/%012lld.msg", me, k);
        if (!exists(path)) {
            if (k <= head) continue;            /* a gap at or below head is skipped */
            return 0;
        }
        if (!read_message(path, k, from, from_run, to_run, body, max)) {
            char aside[MAXPATH], tok[17];       /* M4: a damaged message goes to trash/ */
            token(tok);
            if (rename(path, at(aside, "trash/%s-%012lld.msg", tok, k)) != 0) remove(path);
            continue;
        }
        if (quiet && strcmp(to_run, run) == 0) return 0;    /* I2: stop at the first one for this run */
        snprintf(num, sizeof num, "%lld", k);
        write_record(at(path, "box/%s/tail", me), num);
        remove(at(path, "box/%s/%012lld.msg", me, k));
        if (!quiet) return 1;
    }
}

/* I1 I2: join as `me` (the member record, `machine` empty), then drop what was sent to earlier runs. */
static void join(void) {
    char path[MAXPATH], text[256], body[256], from[40], from_run[80];
    token(run);
    lock();
    MKDIR(at(path, "box/%s", me));
    snprintf(text, sizeof text, "cardstand-member 1\nname: %s\nrun: %s\nhost: %s\nmachine: \npid: %d",
             me, run, host, (int)GETPID());
    if (write_record(at(path, "box/%s/member", me), text) != 0) die(2, "cannot join: %s", strerror(errno));
    while (take_oldest(body, sizeof body, 1, from, from_run)) {}
    unlock();
}

/* ---- 4. messages (M2 M3, and M4 M5 above) ------------------------------------------------------ */

/* Send `body` to `you`; 1 when delivered, 0 when not (it has not joined yet: try again later). */
static int send_to_you(const char *body) {
    char path[MAXPATH], buf[4097], to_run[80], num[32];
    static char msg[MAXMSG];
    lock();
    if (slurp(at(path, "box/%s/member", you), buf, 4096) < 0) { unlock(); return 0; }     /* M3 */
    record_get(buf, "run", to_run, sizeof to_run);
    long long head = read_number(at(path, "box/%s/head", you)), tail = read_number(at(path, "box/%s/tail", you));
    long long k = (head > tail ? head : tail) + 1;                                          /* M2 */
    while (exists(at(path, "box/%s/%012lld.msg", you, k))) k++;
    size_t blen = strlen(body);
    int n = snprintf(msg, sizeof msg, "cardstand-msg 1\nfrom: %s\nfrom-run: %s\nto: %s\nto-run: %s\nseq: %lld\n"
                     "length: %zu\ncrc32: %08lx\n\n%s", me, run, you, to_run, k, blen,
                     crc32((const unsigned char *)body, blen), body);
    int sent = lock_is_mine() && publish(at(path, "box/%s/%012lld.msg", you, k), msg, (size_t)n) == 0;   /* L2 */
    if (sent) {
        snprintf(num, sizeof num, "%lld", k);
        write_record(at(path, "box/%s/head", you), num);
    }
    unlock();
    return sent;
}

/* The next message from the opponent's current run, or 0 when none waits (it is polled). */
static int receive(char *body, size_t max) {
    char path[MAXPATH], from[40], from_run[80], buf[4097], your_run[80];
    long long tail = read_number(at(path, "box/%s/tail", me));
    if (!exists(at(path, "box/%s/%012lld.msg", me, tail + 1)) && read_number(at(path, "box/%s/head", me)) <= tail)
        return 0;                               /* M6: peeked without the lock, nothing there */
    lock();
    int got = take_oldest(body, max, 0, from, from_run);
    your_run[0] = 0;
    if (slurp(at(path, "box/%s/member", you), buf, 4096) >= 0) record_get(buf, "run", your_run, sizeof your_run);
    unlock();
    for (char *c = from; *c; c++) *c = (char)tolower((unsigned char)*c);
    if (got && (strcmp(from, you) != 0 || strcmp(from_run, your_run) != 0)) {      /* H8 */
        printf("ignored a message from %s (not %s's current run)\n", from, you);
        return 0;
    }
    return got;
}

/* ---- 5. moves (G1-G4) ------------------------------------------------------------------------ */

static int cell[8][8];                          /* 0 empty, 1 black, 2 white */

static int flips(int colour, int r, int c, int apply) {
    int total = 0;
    if (cell[r][c]) return 0;
    for (int dr = -1; dr <= 1; dr++)
        for (int dc = -1; dc <= 1; dc++) {
            int n = 0, y = r + dr, x = c + dc;
            if (!dr && !dc) continue;
            while (y >= 0 && y < 8 && x >= 0 && x < 8 && cell[y][x] == 3 - colour) y += dr, x += dc, n++;
            if (n && y >= 0 && y < 8 && x >= 0 && x < 8 && cell[y][x] == colour) {
                total += n;
                for (int i = 1; apply && i <= n; i++) cell[r + i * dr][c + i * dc] = colour;
            }
        }
    if (apply && total) cell[r][c] = colour;
    return total;
}

static int has_move(int colour) {
    for (int i = 0; i < 64; i++) if (flips(colour, i / 8, i % 8, 0)) return 1;
    return 0;
}

/* P3: "d3", or "d3 #5 t=120": the square, the rest ignored; -1 when it is not a square of this board. */
static int parse_square(const char *s) {
    while (isspace((unsigned char)*s)) s++;
    int c = tolower((unsigned char)s[0]) - 'a', r = s[1] - '1';
    if (c < 0 || c > 7 || r < 0 || r > 7 || isdigit((unsigned char)s[2])) return -1;
    return s[2] == 0 || isspace((unsigned char)s[2]) || s[2] == '#' ? r * 8 + c : -1;
}

int main(int argc, char **argv) {
    const char *colour = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--board") == 0 && i + 1 < argc) {
            if (strlen(argv[++i]) >= sizeof board) die(2, "the board's path is too long");
            strcpy(board, argv[i]);
        }
        else if (strcmp(argv[i], "--color") == 0 && i + 1 < argc) colour = argv[++i];
        else if (strcmp(argv[i], "play") != 0) die(2, "unknown option %s", argv[i]);
    }
    if (!board[0] || !colour || (strcmp(colour, "black") != 0 && strcmp(colour, "white") != 0))
        die(2, "usage: minimal play --board DIR --color black|white");
    setvbuf(stdout, NULL, _IONBF, 0);
    strcpy(me, colour);
    strcpy(you, strcmp(colour, "black") == 0 ? "white" : "black");
    hostname(host, sizeof host);
    for (char *h = host; *h; h++) if (!isalnum((unsigned char)*h) && *h != '-') *h = '-';   /* for scratch names */
    open_board();
    join();
    printf("joined %s as %s\n", board, me);

    int mine = strcmp(me, "black") == 0 ? 1 : 2, turn = 1;
    cell[3][3] = cell[4][4] = 2;                /* G1: white d4 e5, black e4 d5 */
    cell[3][4] = cell[4][3] = 1;
    char body[256];
    while (has_move(1) || has_move(2)) {
        if (!has_move(turn)) {                  /* G3: a pass is not sent in classic mode, each side applies it */
            printf("%s passes\n", turn == 1 ? "black" : "white");
            turn = 3 - turn;
            continue;
        }
        if (turn == mine) {                     /* the move that flips the most, the first such */
            while (receive(body, sizeof body))  /* G2: what waits was sent before our move: out of turn */
                printf("ignored from %s (not its turn)\n", you);
            int best = -1, most = 0;
            for (int i = 0; i < 64; i++) {
                int n = flips(mine, i / 8, i % 8, 0);
                if (n > most) most = n, best = i;
            }
            flips(mine, best / 8, best % 8, 1);
            snprintf(body, sizeof body, "%c%d", 'a' + best % 8, best / 8 + 1);
            while (!send_to_you(body)) pause_ms(100);   /* the opponent may not have joined yet */
            printf("%s plays %s\n", me, body);
        } else {
            if (!receive(body, sizeof body)) { pause_ms(50); continue; }
            int sq = parse_square(body);
            if (sq < 0 || !flips(turn, sq / 8, sq % 8, 1)) {    /* G2: a control line, a pass, junk, illegal */
                printf("ignored from %s: ", you);
                for (int i = 0; body[i] && i < 40; i++) {           /* P5: only printable ASCII shown as is */
                    unsigned char ch = (unsigned char)body[i];
                    if (ch < 0x20 || ch >= 0x7f) printf("\\x%02x", ch); else putchar(ch);
                }
                printf("\n");
                continue;
            }
            printf("%s plays %s\n", you, body);
        }
        turn = 3 - turn;
    }
    int b = 0, w = 0;
    for (int i = 0; i < 64; i++) b += cell[i / 8][i % 8] == 1, w += cell[i / 8][i % 8] == 2;
    printf("game over: black %d - white %d\n", b, w);
    return 0;
}
