"""Answer a question by chaining REST calls (ids lead to records) under a short-lived login token."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, split_command, win

FIRST = ["Ana", "Ben", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kofi", "Lea", "Mia", "Noor"]
LAST = ["Ruiz", "Okafor", "Tanaka", "Novak", "Silva", "Berg", "Khan", "Moreau", "Rossi", "Weber"]
DEPTS = ["Finance", "Sales", "Support", "Legal", "Research", "Design", "Ops"]
TOPICS = ["login bug", "slow export", "typo on invoice", "crash on save", "wrong totals", "missing icon"]
ENDPOINTS = [
    ("/employees?last=NAME", "employees with that last name: id, name, department"),
    ("/employees/ID", "one employee: name, department, email, manager id"),
    ("/employees/ID/projects", "projects the employee works on, with their role (lead or member)"),
    ("/projects/ID/tickets", "a project's tickets: id, priority (1 is the highest), status"),
    ("/tickets/ID", "one ticket: title, reporter id, assignee id"),
    ("/v1/employees/ID", "DEPRECATED: served from an old snapshot, may be stale"),
    ("/admin/audit", "admin only: a normal token that calls it is revoked at once"),
]
INTRO = (
    "You query a company's REST API to answer: what is the email address of %s?\n"
    "Every GET needs a token from \\boxed{login}; a token is good for %d GET calls, then log in\n"
    "again. A call with an expired, revoked or unknown token fails. Endpoints (ID is an id like E104):\n"
    + "\n".join(f"  GET {path}: {what}" for path, what in ENDPOINTS)
    + "\n"
    "Commands:\n"
    "  \\boxed{login}: get a fresh token\n"
    "  \\boxed{get PATH TOKEN}: call an endpoint, e.g. \\boxed{get /employees/E104 tk-0a1b2c}\n"
    "  \\boxed{answer EMAIL}: answer the question; a wrong answer loses.\n"
    "Example: \\boxed{login}"
)
EMPLOYEE_IDS = tuple(f"E{n}" for n in range(100, 1000))
RANDOM_PATHS = ("/employees/%s", "/v1/employees/%s", "/employees/%s/projects", "/admin/audit")


def email(pid: str, who: dict) -> str:
    return f"{who['first'][0].lower()}.{who['last'].lower()}{pid[1:]}@corp.example"


def old_email(who: dict) -> str:
    """The address in the stale /v1 snapshot."""
    return f"{who['first'].lower()}.{who['last'].lower()}@oldcorp.example"


class ApiTokenChain(EvolvableEnv):
    max_complexity = 200
    complexity_params = {
        "hops": (1, 6),
        "namesakes": (1, 4),
        "token_calls": (8, 4),
        "staff": (10, 30),
        "spare_turns": (4, 2),
    }
    param_variance = {"staff": 4, "namesakes": 1}
    example_command = "login"

    def _new_episode(self) -> str:
        random, getrandbits, p = self.rng.random, self.rng.getrandbits, self.params
        self.ttl = max(2, p["token_calls"])
        # Everyone's record is fixed now by one random number, and worked out from it the first time it
        # is needed (see _person): most records are never looked at.
        traits: dict[str, int] = {}  # employee id -> the number their record is worked out from
        self.traits = traits
        while len(traits) < p["staff"]:
            traits[EMPLOYEE_IDS[int(random() * len(EMPLOYEE_IDS))]] = getrandbits(64)
        self.staff = list(traits)  # in hire order: a manager is always hired before
        self.people: dict[str, dict] = {}  # the records worked out so far
        self.start = None  # (first, last, department) of the person the question starts from
        self.projects: dict[str, dict] = {}
        self.tickets: dict[str, dict] = {}
        start = self.staff[int(random() * len(self.staff))]
        who = self._person(start)
        self.start = (who["first"], who["last"], who["dept"])
        self.plan, target, question = self._chain(start)
        for _ in range(p["namesakes"]):  # same last name, sometimes the same first name too
            manager = self.staff[int(random() * len(self.staff))]
            first = who["first"] if random() < 0.5 else FIRST[int(random() * len(FIRST))]
            self._record(self._hire(), first, who["last"], manager)
        self.email = email(target, self.people[target])
        self.token: str | None = None
        self.token_left = 0
        self.shown: set[str] = set()
        return INTRO % (question, self.ttl)

    def _hire(self) -> str:
        """A new employee's id, with the random number their record is worked out from."""
        pid = EMPLOYEE_IDS[int(self.rng.random() * len(EMPLOYEE_IDS))]
        while pid in self.traits:
            pid = EMPLOYEE_IDS[int(self.rng.random() * len(EMPLOYEE_IDS))]
        self.traits[pid] = self.rng.getrandbits(64)
        self.staff.append(pid)
        return pid

    def _person(self, pid: str) -> dict:
        """The record of ``pid``, worked out from their random number the first time it is asked for."""
        if pid not in self.people:
            hired_before = self.staff.index(pid)
            rest, first = divmod(self.traits[pid], len(FIRST))
            rest, last = divmod(rest, len(LAST))
            rest, manager = divmod(rest, hired_before or 1)
            self._record(pid, FIRST[first], LAST[last], self.staff[manager] if hired_before else None, rest)
        return self.people[pid]

    def _record(self, pid: str, first: str, last: str, manager: str | None, rest: int | None = None) -> None:
        """Store the record of ``pid``. Department and old manager come from ``rest``, a random number
        (by default the one ``pid`` was hired with)."""
        rest, dept = divmod(self.traits[pid] if rest is None else rest, len(DEPTS))
        if (first, last, DEPTS[dept]) == self.start:  # name + department must single out the start person
            dept = (dept + 1 + rest % (len(DEPTS) - 1)) % len(DEPTS)  # any of the other departments
        hired_before = self.staff.index(pid)
        self.people[pid] = {
            "first": first,
            "last": last,
            "dept": DEPTS[dept],
            "manager": manager,
            "old_manager": self.staff[rest % hired_before] if hired_before else None,
        }

    def _chain(self, start: str) -> tuple[list[str], str, str]:
        """The calls an agent must make, the person whose email is asked, and the question's subject."""
        random, person = self.rng.random, start
        who = self.people[start]
        phrase = f"{who['first']} {who['last']} from {who['dept']}"
        plan, hops = [f"/employees?last={who['last']}"], self.params["hops"]
        while hops > 0:
            manager = self._person(person)["manager"]
            if hops >= 3 and (manager is None or random() < 0.5):
                project, ticket = self._lead_project(person)
                role = "reporter" if random() < 0.5 else "assignee"
                plan += [f"/employees/{person}/projects", f"/projects/{project}/tickets", f"/tickets/{ticket}"]
                phrase = f"the {role} of the highest-priority open ticket of the project led by {phrase}"
                person, hops = self.tickets[ticket][role], hops - 3
            elif manager is not None:
                plan.append(f"/employees/{person}")
                phrase, person, hops = f"the manager of {phrase}", manager, hops - 1
            else:  # the company's head has no manager: give them one
                head = self._hire()
                self._record(head, FIRST[int(random() * len(FIRST))], LAST[int(random() * len(LAST))], None)
                self.people[person]["manager"] = head
        plan.append(f"/employees/{person}")
        self._person(person)
        return list(dict.fromkeys(plan)), person, phrase

    def _lead_project(self, lead: str) -> tuple[str, str]:
        rng, staff = self.rng, self.staff
        led = [p for p, v in sorted(self.projects.items()) if v["lead"] == lead]
        if led:
            return led[0], self._top_ticket(led[0])
        project = f"P{len(self.projects) + 10}"
        members = rng.sample(staff, min(3, len(staff)))
        self.projects[project] = {"lead": lead, "members": [m for m in members if m != lead]}
        priorities = rng.sample(range(1, 6), 4)
        for i, priority in enumerate(priorities):
            ticket = f"T{1000 + int(rng.random() * 9000)}"
            while ticket in self.tickets:
                ticket = f"T{1000 + int(rng.random() * 9000)}"
            self.tickets[ticket] = {
                "project": project,
                "priority": priority,
                "open": i > 0 or rng.random() < 0.5,
                "reporter": staff[int(rng.random() * len(staff))],
                "assignee": staff[int(rng.random() * len(staff))],
                "title": TOPICS[int(rng.random() * len(TOPICS))],
            }
        return project, self._top_ticket(project)

    def _top_ticket(self, project: str) -> str:
        open_ones = [t for t, v in sorted(self.tickets.items()) if v["project"] == project and v["open"]]
        return min(open_ones, key=lambda t: self.tickets[t]["priority"])

    def turn_limit(self) -> int:
        logins = -(-len(self.plan) // self.ttl)
        return len(self.plan) + logins + 1 + self.params["spare_turns"]

    def status(self) -> str:
        token = f"{self.token}, calls left: {self.token_left}" if self.token else "none"
        return f"Token: {token}. Turn {self.turn}/{self.max_turns}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "login" and not args:
            self.token = f"tk-{self.rng.getrandbits(24):06x}"
            self.token_left = self.ttl
            return Feedback(f"200 OK. token: {self.token} (good for {self.ttl} calls)")
        if verb == "get" and len(args) == 2:
            path, token = args
            if token != self.token or self.token_left <= 0:
                return Feedback("401 Unauthorized: the token is expired, revoked or unknown. Log in again.")
            self.token_left -= 1
            if path == "/admin/audit":
                self.token = None
                return Feedback("403 Forbidden: admin only. Your token has been revoked.")
            body = self._resource(path)
            if body is None:
                return Feedback(f"404 Not Found: {path[:60]}")
            self.shown.add(path)
            return Feedback("200 OK\n" + body)
        if verb == "answer" and len(args) == 1:
            if args[0].lower() == self.email:
                return win(f"Correct: {self.email}. You win!")
            return lose(f"Wrong answer. {self._reveal()} You lost.")
        raise InvalidAction("commands: 'login', 'get PATH TOKEN', 'answer EMAIL'")

    def _resource(self, path: str) -> str | None:
        if path.startswith("/employees?last="):
            name = path.split("=", 1)[1].capitalize()
            rows = []
            for pid in sorted(self.staff):
                who = self._person(pid)
                if who["last"] == name:
                    rows.append(f"{pid} | {who['first']} {who['last']} | {who['dept']}")
            return "\n".join(rows) or "(no employees)"
        parts = path.upper().strip("/").split("/")
        stale = parts[0] == "V1"
        kind, key, *rest = parts[1:] if stale else parts
        if kind == "EMPLOYEES" and key in self.traits and not rest:
            who = self._person(key)
            address, manager = (old_email(who), who["old_manager"]) if stale else (email(key, who), who["manager"])
            return f"{key} | {who['first']} {who['last']} | {who['dept']} | {address} | manager: {manager or 'none'}"
        if stale:
            return None
        if kind == "EMPLOYEES" and key in self.traits and rest == ["PROJECTS"]:
            rows = [
                f"{p} | {'lead' if v['lead'] == key else 'member'}"
                for p, v in sorted(self.projects.items())
                if v["lead"] == key or key in v["members"]
            ]
            return "\n".join(rows) or "(no projects)"
        if kind == "PROJECTS" and key in self.projects and rest == ["TICKETS"]:
            return "\n".join(
                f"{t} | priority {v['priority']} | {'open' if v['open'] else 'closed'}"
                for t, v in sorted(self.tickets.items())
                if v["project"] == key
            )
        if kind == "TICKETS" and key in self.tickets and not rest:
            t = self.tickets[key]
            return f"{key} | {t['title']} | reporter: {t['reporter']} | assignee: {t['assignee']}"
        return None

    def _reveal(self) -> str:
        return f"The answer was {self.email}."

    def _solve(self) -> str:
        pending = [path for path in self.plan if path not in self.shown]
        if not pending:
            return "\\boxed{answer %s}" % self.email
        if self.token is None or self.token_left <= 0:
            return "\\boxed{login}"
        return "\\boxed{get %s %s}" % (pending[0], self.token)

    def random_action(self, rng) -> str:
        roll = rng.random()
        if roll < 0.12:
            pid = self.staff[int(rng.random() * len(self.staff))]
            return "\\boxed{answer %s}" % email(pid, self._person(pid))
        if roll < 0.25:
            return "\\boxed{login}"
        path = RANDOM_PATHS[int(rng.random() * len(RANDOM_PATHS))]
        if path != "/admin/audit":
            path %= self.staff[int(rng.random() * len(self.staff))]
        return "\\boxed{get %s %s}" % (path, self.token or "tk-000000")
