"""``python -m peer samples [FOLDER]``: copy the sample programs into a folder of one's own.

The samples (``peer/sample-programs/``) run as they are from the folder they are copied to: the
tutorial's classic black and white, a first AI, a weighted table, minimax, a tournament and a
table tuned by self-play, commented in English and Japanese.
"""
import argparse
import shlex
import shutil
import sys
from pathlib import Path

from . import installed

SOURCE = Path(__file__).with_name("sample-programs")
DEFAULT = "cardstand-samples"


def files() -> list[Path]:
    """The sample files, sorted by name."""
    return sorted(p for p in SOURCE.iterdir() if p.is_file() and p.suffix in (".py", ".md"))


def copy(dest: Path) -> list[Path]:
    """Copy every sample into ``dest`` (made if missing); ValueError when ``dest`` is a file or
    already holds a file of the same name (nothing is overwritten, nothing is copied)."""
    if dest.exists() and not dest.is_dir():
        raise ValueError(f"{dest} is a file, not a folder")
    clash = [p.name for p in files() if (dest / p.name).exists() or (dest / p.name).is_symlink()]
    if clash:
        raise ValueError(f"{dest} already has {', '.join(clash)}: nothing copied "
                         f"(choose another folder, or move those away)")
    dest.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copyfile(p, dest / p.name)) for p in files()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"{installed.peer_command()} samples",
                                 description="Copy the sample programs (a first AI, a weighted table, "
                                             "minimax, a tournament, tuning by self-play, the tutorial's "
                                             "classic black and white) into FOLDER.")
    ap.add_argument("folder", nargs="?", default=DEFAULT, help=f"where to copy them (default ./{DEFAULT})")
    args = ap.parse_args(argv)
    if not args.folder.strip():
        ap.error("the folder name is empty")
    dest = Path(args.folder)
    try:
        copied = copy(dest)
    except ValueError as e:
        print(f"{installed.peer_command()} samples: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{installed.peer_command()} samples: cannot copy into {dest}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"{len(copied)} files copied into {dest}:")
    for p in copied:
        print(f"  {p.name}")
    print(f"Start with:  cd {shlex.quote(str(dest))}  and  python first_ai.py   (README.md says what each one does)")
    return 0
