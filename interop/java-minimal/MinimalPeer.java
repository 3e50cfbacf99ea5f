// A first cardstand peer in Java: the minimal profile of docs/PROTOCOL.md,
// written step by step from docs/FIRST-PEER.md. Sections are numbered as
// the page's steps.
//
//   javac interop/java-minimal/MinimalPeer.java
//   java -cp interop/java-minimal MinimalPeer play --board DIR --color black|white
//
// Plays classic mode only (bare squares); one file, the standard library only.

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.security.SecureRandom;
import java.util.*;
import java.util.zip.CRC32;

public final class MinimalPeer {
    static final long STALE_NANOS = 10_000_000_000L;  // L = 10 s, never shorter (L4)
    static final SecureRandom RANDOM = new SecureRandom();

    final Path board;
    final String me, other;
    final String host = hostName();
    final long pid = ProcessHandle.current().pid();
    final String run = token();
    String lockToken;
    byte[] watchedPair;      // L3: what lock/owner + lock/beat held when last looked at
    long watchedSince;       // and since when, on the monotonic clock (kept across waits)

    MinimalPeer(Path board, String color) {
        this.board = board;
        this.me = color;
        this.other = color.equals("black") ? "white" : "black";
    }

    public static void main(String[] args) {
        if (args.length != 5 || !args[0].equals("play") || !args[1].equals("--board")
                || !args[3].equals("--color") || !(args[4].equals("black") || args[4].equals("white"))) {
            System.err.println("usage: MinimalPeer play --board DIR --color black|white");
            System.exit(2);
        }
        try {
            MinimalPeer peer = new MinimalPeer(Paths.get(args[2]), args[4]);
            peer.join();
            System.exit(peer.playGame());
        } catch (BoardRefused e) {
            System.err.println(e.getMessage());
            System.exit(2);
        } catch (IOException | RuntimeException e) {
            System.err.println("cannot go on with the board " + args[2] + ": " + e);
            System.exit(1);
        }
    }

    static final class BoardRefused extends Exception {
        BoardRefused(String message) { super(message); }
    }

    // ---- Step 1: the folder, records, the member record (F2, B2, R1, I1, I1a)

    static String token() {
        return String.format("%016x", RANDOM.nextLong());
    }

    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "_");
        } catch (IOException e) {
            return "unknown";
        }
    }

    void prepareBoard() throws IOException, BoardRefused {
        Files.createDirectories(board);
        Path marker = board.resolve("cardstand.board");
        if (!Files.exists(marker, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(board.resolve("tmp"));
            publish("cardstand.board", "cardstand-board 1\n".getBytes(StandardCharsets.UTF_8));
        } else {
            byte[] bytes = Files.readAllBytes(marker);
            String text = new String(bytes, StandardCharsets.UTF_8).replaceAll("^[ \t\r\n]+|[ \t\r\n]+$", "");
            if (bytes.length > 4096 || !text.matches("cardstand-board[ \t\r\n]+[0-9]{1,9}")) {
                throw new BoardRefused(board + " is not a cardstand board (its cardstand.board reads otherwise)");
            }
            long version = Long.parseLong(text.split("[ \t\r\n]+")[1]);
            if (version != 1) {
                throw new BoardRefused(board + " is a board of version " + version + "; this program knows version 1");
            }
        }
        for (String dir : new String[] {"box", "tmp", "trash"}) {
            Files.createDirectories(board.resolve(dir));
        }
    }

    /** B2: a file appears whole, by renaming a flushed scratch file from tmp/. */
    void publish(String name, byte[] content) throws IOException {
        Path scratch = writeScratch(content);
        Files.move(scratch, board.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    Path writeScratch(byte[] content) throws IOException {
        Path scratch = board.resolve("tmp").resolve(host + "-" + pid + "-" + token() + ".tmp");
        try (FileChannel out = FileChannel.open(scratch, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            out.write(ByteBuffer.wrap(content));
            out.force(true);
        }
        return scratch;
    }

    /** R1: lines joined by \n, padded with spaces to 255 bytes, then \n. */
    static byte[] record(String... lines) {
        byte[] text = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[256];
        Arrays.fill(out, (byte) ' ');
        System.arraycopy(text, 0, out, 0, Math.min(text.length, 255));
        out[255] = '\n';
        return out;
    }

    /** R1: the key: value lines of a record (the first line skipped); null when missing. */
    Map<String, String> readRecord(String name) {
        byte[] bytes = readSmall(board.resolve(name), 4096);
        if (bytes == null) return null;
        Map<String, String> values = new HashMap<>();
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
            int colon = line.indexOf(": ");
            if (colon > 0) values.putIfAbsent(line.substring(0, colon), line.substring(colon + 2).strip());
        }
        return values;
    }

    /** R3: a number record; missing or damaged reads as 0. */
    long readNumber(String name) {
        byte[] bytes = readSmall(board.resolve(name), 4096);
        String text = bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8).replaceAll("^[ \t\r\n]+|[ \t\r\n]+$", "");
        return text.matches("[0-9]{1,12}") ? Long.parseLong(text) : 0;
    }

    /** The first max bytes of a regular file (never through a link), or null. */
    static byte[] readSmall(Path path, int max) {
        if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) return null;
        try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buffer = ByteBuffer.allocate(max);
            while (buffer.hasRemaining() && in.read(buffer) > 0) { }
            return Arrays.copyOf(buffer.array(), buffer.position());
        } catch (IOException e) {
            return null;
        }
    }

    void join() throws IOException, BoardRefused {
        prepareBoard();
        takeLock();
        try {
            Files.createDirectories(board.resolve("box").resolve(me));
            publish("box/" + me + "/member", record("cardstand-member 1", "name: " + me, "run: " + run,
                    "host: " + host, "machine: ", "pid: " + pid));
            quiet();
        } finally {
            releaseLock();
        }
    }

    // ---- Step 2: the lock (L1, L3, L4, L5, L6)

    void takeLock() throws IOException {
        double pause = 0.5;
        while (true) {
            lockToken = token();
            Path mine = board.resolve("tmp").resolve("lock-" + lockToken);
            Files.createDirectory(mine);
            Files.write(mine.resolve("owner"), record("cardstand-lock 1", "token: " + lockToken, "name: " + me,
                    "host: " + host, "machine: ", "pid: " + pid));
            try {
                Files.move(mine, board.resolve("lock"), StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                // whatever the rename said, lock/owner decides (L1)
            }
            if (ownsLock()) {
                watchedPair = null;
                return;
            }
            deleteFolder(mine);
            byte[] pair = lockPair(board.resolve("lock"));
            long now = System.nanoTime();
            if (watchedPair == null || !Arrays.equals(pair, watchedPair)) {
                watchedPair = pair;
                watchedSince = now;
            } else if (now - watchedSince >= STALE_NANOS && Files.exists(board.resolve("lock"), LinkOption.NOFOLLOW_LINKS)) {
                breakLock(pair);
            }
            sleepMillis(pause);
            pause = Math.min(pause * 2, 10);
        }
    }

    boolean ownsLock() {
        Map<String, String> owner = readRecord("lock/owner");
        return owner != null && lockToken.equals(owner.get("token"));
    }

    /** L3: lock/owner and lock/beat as bytes (missing: empty), as one value to compare. */
    byte[] lockPair(Path folder) {
        byte[] owner = readSmall(folder.resolve("owner"), 4096);
        byte[] beat = readSmall(folder.resolve("beat"), 4096);
        owner = owner == null ? new byte[0] : owner;
        beat = beat == null ? new byte[0] : beat;
        byte[] pair = Arrays.copyOf(owner, owner.length + 1 + beat.length);  // a 0 byte between them
        System.arraycopy(beat, 0, pair, owner.length + 1, beat.length);
        return pair;
    }

    /** L5: move the stale lock aside, and delete it only if it is the one judged stale. */
    void breakLock(byte[] judged) {
        Path aside = board.resolve("tmp").resolve("stale-" + token());
        try {
            Files.move(board.resolve("lock"), aside, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            return;
        }
        if (Arrays.equals(lockPair(aside), judged)) {
            deleteFolder(aside);
        } else {
            try {
                Files.move(aside, board.resolve("lock"), StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                // a new lock was taken meanwhile: the moved one stays in tmp/ for clean-up (L5)
            }
        }
        watchedPair = null;
    }

    void releaseLock() throws IOException {
        if (!ownsLock()) {
            System.err.println("the board lock was broken while this program held it");
            return;
        }
        Path released = board.resolve("tmp").resolve("released-" + lockToken);
        Files.move(board.resolve("lock"), released, StandardCopyOption.ATOMIC_MOVE);
        deleteFolder(released);
    }

    /** Deletes what is in a folder name by name (a link goes alone, B6), then the folder. */
    static void deleteFolder(Path folder) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path entry : entries) Files.deleteIfExists(entry);
        } catch (IOException e) {
            // what cannot be deleted is left for the full peers' clean-up (S1)
        }
        try {
            Files.deleteIfExists(folder);
        } catch (IOException e) {
            // as above
        }
    }

    static void sleepMillis(double millis) {
        try {
            Thread.sleep((long) millis, (int) ((millis % 1) * 1_000_000));
        } catch (InterruptedException e) {
            throw new IllegalStateException("interrupted", e);
        }
    }

    // ---- Step 3: reading messages, and Quiet (M1, M1a, M4, M5, I2)

    record Message(String from, String fromRun, String toRun, String body) { }

    /** M4 + M5: under the lock, takes and consumes the oldest valid message, or returns null. */
    Message takeOldest() throws IOException {
        String box = "box/" + me + "/";
        long tail = readNumber(box + "tail");
        long head = readNumber(box + "head");
        for (long k = tail + 1; ; k++) {
            String name = box + String.format("%012d", k) + ".msg";
            Path path = board.resolve(name);
            if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                if (k <= head) continue;
                return null;
            }
            Message message = parse(path, k);
            if (message == null) {
                setAside(path);
                continue;
            }
            publish(box + "tail", record(Long.toString(k)));
            Files.deleteIfExists(path);
            return message;
        }
    }

    /** M1, M1a: a message file, or null when it does not check out. */
    Message parse(Path path, long seq) {
        byte[] bytes = readSmall(path, 69_633);
        if (bytes == null || bytes.length > 69_632) return null;
        int end = -1;
        for (int i = 0; i + 1 < bytes.length && i < 4096; i++) {
            if (bytes[i] == '\n' && bytes[i + 1] == '\n') { end = i; break; }
        }
        if (end < 0) return null;
        String[] lines = new String(bytes, 0, end, StandardCharsets.US_ASCII).split("\n", -1);
        if (!lines[0].equals("cardstand-msg 1")) return null;
        Map<String, String> header = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(": ");
            if (colon <= 0 || header.put(lines[i].substring(0, colon), lines[i].substring(colon + 2)) != null) return null;
        }
        byte[] body = Arrays.copyOfRange(bytes, end + 2, bytes.length);
        CRC32 crc = new CRC32();
        crc.update(body);
        String from = header.get("from");
        String fromRun = header.get("from-run");
        if (from == null || !from.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,31}") || fromRun == null || !fromRun.matches("[A-Za-z0-9_-]{1,64}")
                || !String.valueOf(body.length).equals(header.get("length"))
                || !String.format("%08x", crc.getValue()).equals(header.get("crc32"))
                || header.get("seq") == null || !header.get("seq").matches("[0-9]{1,12}") || Long.parseLong(header.get("seq")) != seq
                || !me.equalsIgnoreCase(header.get("to"))) {
            return null;
        }
        return new Message(from, fromRun, header.getOrDefault("to-run", ""), new String(body, StandardCharsets.UTF_8));
    }

    void setAside(Path path) {
        try {
            Files.move(path, board.resolve("trash").resolve(token() + "-" + path.getFileName()), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            try { Files.deleteIfExists(path); } catch (IOException ignored) { }  // the profile allows deleting it
        }
    }

    /** I2: drop what was sent to earlier runs of this colour. Called under the lock. */
    void quiet() throws IOException {
        while (takeOldest() != null) { }
    }

    // ---- Step 4: sending (M2, M3, L2)

    /** Sends body to the opponent; false when it has not joined yet. */
    boolean send(String body) throws IOException {
        takeLock();
        try {
            String box = "box/" + other + "/";
            Map<String, String> member = readRecord(box + "member");
            if (member == null || member.getOrDefault("run", "").isEmpty()) return false;
            long k = Math.max(readNumber(box + "head"), readNumber(box + "tail")) + 1;
            while (Files.exists(board.resolve(box + String.format("%012d", k) + ".msg"), LinkOption.NOFOLLOW_LINKS)) k++;
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            CRC32 crc = new CRC32();
            crc.update(bytes);
            String header = "cardstand-msg 1\nfrom: " + me + "\nfrom-run: " + run + "\nto: " + other
                    + "\nto-run: " + member.get("run") + "\nseq: " + k + "\nlength: " + bytes.length
                    + "\ncrc32: " + String.format("%08x", crc.getValue()) + "\n\n";
            byte[] head = header.getBytes(StandardCharsets.US_ASCII);
            byte[] all = Arrays.copyOf(head, head.length + bytes.length);
            System.arraycopy(bytes, 0, all, head.length, bytes.length);
            Path scratch = writeScratch(all);
            if (!ownsLock()) {
                Files.deleteIfExists(scratch);
                throw new IOException("the board lock was taken from this program before it could send");
            }
            Files.move(scratch, board.resolve(box + String.format("%012d", k) + ".msg"), StandardCopyOption.ATOMIC_MOVE);
            publish(box + "head", record(Long.toString(k)));
            return true;
        } finally {
            releaseLock();
        }
    }

    // ---- Step 5: a whole game (G1-G4, G3a, H6, H6a, P5)

    final int[][] cells = new int[8][8];   // [row][column]: 0 empty, 1 black, -1 white
    static final int[][] DIRECTIONS = {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};

    int flips(int row, int col, int side, boolean apply) {
        if (cells[row][col] != 0) return 0;
        int total = 0;
        for (int[] d : DIRECTIONS) {
            int r = row + d[0], c = col + d[1], run = 0;
            while (r >= 0 && r < 8 && c >= 0 && c < 8 && cells[r][c] == -side) { r += d[0]; c += d[1]; run++; }
            if (run == 0 || r < 0 || r >= 8 || c < 0 || c >= 8 || cells[r][c] != side) continue;
            total += run;
            if (apply) for (int i = 1; i <= run; i++) cells[row + d[0] * i][col + d[1] * i] = side;
        }
        if (apply && total > 0) cells[row][col] = side;
        return total;
    }

    boolean canMove(int side) {
        for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) if (flips(r, c, side, false) > 0) return true;
        return false;
    }

    static String square(int row, int col) {
        return "" + (char) ('a' + col) + (row + 1);
    }

    /** P5: text from the board, control characters made visible. */
    static String visible(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().forEach(c -> out.append(Character.isISOControl(c) || c == 0x2028 || c == 0x2029
                ? String.format("\\u%04x", c) : new String(Character.toChars(c))));
        return out.length() > 200 ? out.substring(0, 200) + "..." : out.toString();
    }

    int playGame() throws IOException {
        cells[3][3] = cells[4][4] = -1;
        cells[3][4] = cells[4][3] = 1;
        int mine = me.equals("black") ? 1 : -1;
        int toMove = 1;
        System.out.println("Playing " + me + " on " + board);
        while (true) {
            if (!canMove(toMove)) {
                if (!canMove(-toMove)) break;
                System.out.println((toMove == 1 ? "black" : "white") + " has no move and passes");
                toMove = -toMove;          // G3, G3a: applied before the next message is read
                continue;
            }
            if (toMove == mine) {          // G2: what waits now was sent before my move: out of turn
                for (Message m; (m = receive(false)) != null; )
                    System.out.println(other + " sent '" + visible(m.body()) + "' on my turn: ignored");
                int bestRow = -1, bestCol = -1, best = 0;
                for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) {
                    int n = flips(r, c, mine, false);
                    if (n > best) { best = n; bestRow = r; bestCol = c; }
                }
                flips(bestRow, bestCol, mine, true);
                String move = square(bestRow, bestCol);
                while (!send(move)) sleepMillis(100);   // the opponent has not joined yet
                System.out.println("I played " + move);
                toMove = -toMove;
                continue;
            }
            Message message = receive(true);
            if (!message.from().equalsIgnoreCase(other)) {
                System.out.println("ignored a message from " + visible(message.from()));
                continue;
            }
            String body = message.body().strip();
            if (body.matches("(?i)[a-h][1-8]")) {
                int col = Character.toLowerCase(body.charAt(0)) - 'a', row = body.charAt(1) - '1';
                if (flips(row, col, toMove, true) > 0) {
                    System.out.println(other + " played " + body.toLowerCase());
                    toMove = -toMove;
                    continue;
                }
            }
            System.out.println(other + " sent '" + visible(message.body()) + "': not a legal move, ignored");
        }
        int black = 0, white = 0;
        for (int[] row : cells) for (int cell : row) { if (cell == 1) black++; if (cell == -1) white++; }
        System.out.println("Game over: black " + black + " - white " + white);
        return 0;
    }

    /** The next message (with {@code wait}: polls every 50 ms until one comes; else null when none waits),
     *  taking the lock only when one may wait (M6). */
    Message receive(boolean wait) throws IOException {
        String box = "box/" + me + "/";
        while (true) {
            long tail = readNumber(box + "tail");
            if (!Files.exists(board.resolve(box + String.format("%012d", tail + 1) + ".msg"), LinkOption.NOFOLLOW_LINKS)
                    && readNumber(box + "head") <= tail) {
                if (!wait) return null;
                sleepMillis(50);
                continue;
            }
            takeLock();
            Message message;
            try {
                message = takeOldest();
            } finally {
                releaseLock();
            }
            if (message != null || !wait) return message;
            sleepMillis(50);
        }
    }
}
