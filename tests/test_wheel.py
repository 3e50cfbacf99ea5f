"""A wheel built from the project, installed into a fresh environment (no clone beside it), gives
the players and tools as console commands: two of them play a game through a board folder."""
import os
import subprocess
import sys
import venv


from peertools import ROOT



def run(argv, cwd, timeout=600, **kw):
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, encoding="utf-8", timeout=timeout, **kw)


def test_an_installed_wheel_plays_with_its_console_commands(tmp_path):
    r = run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"), str(ROOT)], tmp_path)
    assert r.returncode == 0, r.stderr[-1500:]
    (wheel,) = (tmp_path / "dist").glob("cardstand_othello-*.whl")
    venv.create(tmp_path / "env", with_pip=True)
    bin_dir = tmp_path / "env" / ("Scripts" if os.name == "nt" else "bin")
    r = run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], tmp_path)
    assert r.returncode == 0, r.stderr[-1500:]
    home = tmp_path / "home"            # far from the clone: only the installed packages
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(NO_COLOR="1", PYTHONIOENCODING="utf-8")
    cmd = lambda name: str(bin_dir / name)      # noqa: E731
    b = subprocess.Popen([cmd("cardstand-black"), "--board", "b", "--ai", "greedy", "--time", "0.1", "--lang", "en"],
                         cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    w = run([cmd("cardstand-white"), "--board", "b", "--ai", "random", "--time", "0.1", "--lang", "en"], home,
            timeout=180, env=env)
    ob, _ = b.communicate(timeout=180)
    assert b.returncode == 0 and w.returncode == 0, (ob[-800:], w.stdout[-800:], w.stderr[-800:])
    assert "Game over" in ob and "Game over" in w.stdout
    r = run([cmd("cardstand-engine"), "info"], home, env=env)
    assert r.returncode == 0 and "compiled" in r.stdout, r.stdout + r.stderr
    r = run([cmd("cardstand"), "samples", "mine"], home, env=env)
    assert r.returncode == 0 and (home / "mine" / "first_ai.py").is_file(), r.stderr
    r = run([str(bin_dir / "python"), "first_ai.py"], home / "mine", env=env)
    assert r.returncode == 0 and "FirstAI (black)" in r.stdout, r.stderr
    for name in ("cardstand-comm", "cardstand-kit"):
        r = run([cmd(name), "--help"], home, env=env)
        assert r.returncode == 0 and "usage" in r.stdout.lower(), (name, r.stderr)
