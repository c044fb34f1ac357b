"""Find the parts of a passphrase in a simulated file system using shell commands (ls, cd, cat)."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, distinct_draws, lose, split_command, win

DIR_NAMES = [
    "home",
    "etc",
    "var",
    "srv",
    "opt",
    "tmp",
    "usr",
    "mnt",
    "data",
    "logs",
    "backup",
    "cache",
    "config",
    "projects",
    "notes",
    "archive",
    "build",
    "deploy",
    "docs",
    "lib",
    "media",
    "reports",
    "scripts",
    "share",
    "spool",
    "www",
    "keys",
    "old",
    "drafts",
    "misc",
]
STEMS = [
    "notes",
    "todo",
    "readme",
    "draft",
    "report",
    "backup",
    "config",
    "log",
    "data",
    "old",
    "key",
    "memo",
    "plan",
    "list",
    "dump",
    "index",
    "summary",
    "trace",
]
EXTS = ["txt", "md", "log", "bak", "cfg", "csv", "json"]
FILE_NAMES = [f"{stem}.{ext}" for stem in STEMS for ext in EXTS]
USERS = ["root", "ana", "ben", "chen", "dara", "eli", "femi"]
FILLER = [
    "nothing to see here",
    "remember to water the plants",
    "build passed on the second try",
    "meeting moved to Thursday",
    "TODO: rotate the logs",
    "see the wiki for details",
]
SYMBOLS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
SELECTORS = {
    "largest": "the largest file",
    "smallest": "the smallest file",
    "newest": "the most recently modified file",
    "oldest": "the least recently modified file",
}
SELECTOR_TEXTS = list(SELECTORS.values())
RULES = """You are in a Unix-like shell. A passphrase is split into parts hidden in files; each part's file
says where the next part is, described by a directory and a property shown by ls (size, date,
owner or extension). Other files hold decoy parts, so read only the file the clue points to.
The passphrase has {total} parts. The first part is in {first} there.
Commands (paths may be absolute or relative to the current directory; '..' goes up):
  \\boxed{{ls PATH}}: list a directory (\\boxed{{ls}} lists the current one): owner, size, modified, name
  \\boxed{{cd PATH}}: change directory
  \\boxed{{cat PATH}}: print a file
  \\boxed{{answer PASSPHRASE}}: the parts joined in order (parts AB3 and K7Q give \\boxed{{answer AB3K7Q}});
  a wrong passphrase loses.
Example: \\boxed{{ls /}}"""


class FileSystemHunt(EvolvableEnv):
    max_complexity = 75  # distinct file sizes run out at level 120
    complexity_params = {"parts": (2, 6), "dirs": (4, 30), "files_per_dir": (3, 7), "spare_turns": (6, 3)}
    param_variance = {"dirs": 3, "files_per_dir": 1}
    example_command = "ls /"

    def _new_episode(self) -> str:
        rng, p = self.rng, self.params
        random = rng.random
        self.dirs = ["/"]  # in creation order
        self.subdirs: dict[str, list[str]] = {"/": []}
        while len(self.dirs) <= p["dirs"]:
            parent = self.dirs[int(random() * len(self.dirs))]
            name = DIR_NAMES[int(random() * len(DIR_NAMES))]
            while name in self.subdirs[parent]:  # a name the parent does not have yet, uniformly
                name = DIR_NAMES[int(random() * len(DIR_NAMES))]
            self.subdirs[parent].append(name)
            path = join(parent, name)
            self.subdirs[path] = []
            self.dirs.append(path)
        counts = rng.choices(range(2, p["files_per_dir"] + 1), k=len(self.dirs))
        # Every file's attributes drawn in one go; sizes and times differ across the tree, so within a directory.
        files = sum(counts)
        entries = map(
            list,
            zip(
                rng.choices(USERS, k=files),
                distinct_draws(rng, range(100, 10000), files),
                distinct_draws(rng, range(60 * 24 * 60), files),
                rng.choices(FILLER, k=files),
            ),
        )
        # dir -> name -> [owner, size, modified minute, content]; zip stops at the names, taking k entries
        self.files: dict[str, dict[str, list]] = {
            d: dict(zip(distinct_draws(rng, FILE_NAMES, k), entries)) for d, k in zip(self.dirs, counts)
        }
        total = p["parts"]
        self.clue_dirs = rng.sample(self.dirs[1:], total)  # [0] is "/"
        hints = [self._pick_clue_file(d) for d in self.clue_dirs]
        self.clue_paths = [join(d, name) for d, (name, _) in zip(self.clue_dirs, hints)]
        decoys = [entry for d in self.clue_dirs for entry in self.files[d].values()]
        symbols = "".join(rng.choices(SYMBOLS, k=3 * (total + len(decoys))))
        self.parts = [symbols[3 * k : 3 * k + 3] for k in range(total)]
        for k, entry in enumerate(decoys, total):  # decoys look just like real parts
            folder = self.dirs[int(random() * len(self.dirs))]
            selector = SELECTOR_TEXTS[int(random() * len(SELECTOR_TEXTS))]
            entry[3] = (
                f"Part {1 + int(random() * total)} of {total}: {symbols[3 * k : 3 * k + 3]}. "
                f"The next part is in {folder}: {selector} there."
            )
        for k, (d, (name, _)) in enumerate(zip(self.clue_dirs, hints)):
            pointer = (
                f"The next part is in {self.clue_dirs[k + 1]}: {hints[k + 1][1]} there."
                if k + 1 < total
                else "This was the last part."
            )
            self.files[d][name][3] = f"Part {k + 1} of {total}: {self.parts[k]}. {pointer}"
        self.cwd, self.read, self.listed = "/", set[int](), set[str]()
        self.listings: dict[str, str] = {}  # each directory's ls output, written when first listed
        return RULES.format(total=total, first=f"{self.clue_dirs[0]}: {hints[0][1]}")

    def _pick_clue_file(self, d: str) -> tuple[str, str]:
        entries = self.files[d]
        kind = self.rng.choice(["largest", "smallest", "newest", "oldest", "owner", "ext"])
        if kind == "owner":
            owners = [e[0] for e in entries.values()]
            unique = [n for n, e in sorted(entries.items()) if owners.count(e[0]) == 1]
            if unique:
                name = self.rng.choice(unique)
                return name, f"the only file owned by {entries[name][0]}"
        if kind == "ext":
            exts = [n.split(".")[1] for n in entries]
            unique = sorted(n for n in entries if exts.count(n.split(".")[1]) == 1)
            if unique:
                name = self.rng.choice(unique)
                return name, f"the only .{name.split('.')[1]} file"
        kind = kind if kind in SELECTORS else "largest"
        key = (lambda n: entries[n][1]) if kind in ("largest", "smallest") else (lambda n: entries[n][2])
        pick = max if kind in ("largest", "newest") else min
        return pick(sorted(entries), key=key), SELECTORS[kind]

    def turn_limit(self) -> int:
        return 2 * len(self.parts) + 1 + self.params["spare_turns"]

    def status(self) -> str:
        return f"cwd: {self.cwd}. Turn {self.turn}/{self.max_turns}."

    def _resolve(self, path: str) -> str:
        parts = [] if path.startswith("/") else [p for p in self.cwd.split("/") if p]
        for piece in path.split("/"):
            if piece == "..":
                parts = parts[:-1]
            elif piece not in ("", "."):
                parts.append(piece)
        return "/" + "/".join(parts)

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "ls" and len(args) <= 1:
            target = self._resolve(args[0] if args else ".")
            if target not in self.subdirs:
                return Feedback(f"ls: {target[:60]}: no such directory")
            self.listed.add(target)
            if target not in self.listings:
                self.listings[target] = self._listing(target)
            return Feedback(self.listings[target])
        if verb == "cd" and len(args) == 1:
            target = self._resolve(args[0])
            if target not in self.subdirs:
                return Feedback(f"cd: {target[:60]}: no such directory")
            self.cwd = target
            return Feedback(f"Now in {target}.")
        if verb == "cat" and len(args) == 1:
            target = self._resolve(args[0])
            folder, _, name = target.rpartition("/")
            entry = self.files.get(folder or "/", {}).get(name)
            if entry is None:
                return Feedback(f"cat: {target[:60]}: no such file")
            if target in self.clue_paths:
                self.read.add(self.clue_paths.index(target))
            return Feedback(entry[3])
        if verb == "answer" and len(args) >= 1:
            guess = "".join(args).replace("-", "").upper()
            if guess == "".join(self.parts):
                return win("Correct passphrase. You win!")
            return lose(f"Wrong passphrase. {self._reveal()} You lost.")
        raise InvalidAction("commands: 'ls [PATH]', 'cd PATH', 'cat PATH', 'answer PASSPHRASE'")

    def _listing(self, d: str) -> str:
        lines = [f"{d}:"] + [f"  dir  {name}/" for name in sorted(self.subdirs[d])]
        lines += [
            f"  {owner:5} {size:5d}  {stamp(modified)}  {name}"
            for name, (owner, size, modified, _) in sorted(self.files[d].items())
        ]
        return "\n".join(lines)

    def _reveal(self) -> str:
        return f"The passphrase was {''.join(self.parts)}."

    def _solve(self) -> str:
        for k, path in enumerate(self.clue_paths):
            if k not in self.read:
                if self.clue_dirs[k] not in self.listed:
                    return "\\boxed{ls %s}" % self.clue_dirs[k]
                return "\\boxed{cat %s}" % path
        return "\\boxed{answer %s}" % "".join(self.parts)

    def random_action(self, rng) -> str:
        roll, folder = rng.random(), rng.choice(self.dirs)
        if roll < 0.15:
            return "\\boxed{answer %s}" % "".join(rng.choices(SYMBOLS, k=3 * len(self.parts)))
        if roll < 0.35:
            return "\\boxed{cd %s}" % folder
        if roll < 0.6:
            return "\\boxed{ls %s}" % folder
        return "\\boxed{cat %s}" % join(folder, rng.choice(list(self.files[folder])))


def join(folder: str, name: str) -> str:
    return folder.rstrip("/") + "/" + name


def stamp(minute: int) -> str:
    day, rest = divmod(minute, 24 * 60)
    return f"2024-{3 + day // 30:02d}-{1 + day % 30:02d} {rest // 60:02d}:{rest % 60:02d}"
