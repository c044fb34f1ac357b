"""Answer a question by chaining REST calls (ids lead to records) under a short-lived login token."""

from bisect import insort

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


class ApiTokenChain(EvolvableEnv):
    domain = "tool_use"
    complexity_params = {"hops": (1, 6), "namesakes": (1, 4), "token_calls": (8, 4), "staff": (10, 30),
                         "spare_turns": (4, 2)}
    param_variance = {"staff": 4, "namesakes": 1}
    example_command = "login"

    def _new_episode(self) -> str:
        rng, p = self.rng, self.params
        self.ttl = max(2, p["token_calls"])
        self.people: dict[str, dict] = {}
        self.staff: list[str] = []  # the ids in self.people, kept sorted as people are hired
        for first, last in zip(rng.choices(FIRST, k=p["staff"]), rng.choices(LAST, k=p["staff"])):
            self._hire(first, last, rng.choice(self.staff) if self.people else None)
        self.projects: dict[str, dict] = {}
        self.tickets: dict[str, dict] = {}
        start = rng.choice(self.staff)
        self.plan, target, question = self._chain(start)
        first, last, dept = (self.people[start][k] for k in ("first", "last", "dept"))
        for _ in range(p["namesakes"]):  # same last name, sometimes the same first name too
            self._hire(rng.choice([first, rng.choice(FIRST)]), last, rng.choice(self.staff))
        for pid, other in sorted(self.people.items()):  # name + department must single out the start person
            while pid != start and (other["first"], other["last"], other["dept"]) == (first, last, dept):
                other["dept"] = rng.choice(DEPTS)
        self.email = self.people[target]["email"]
        self.emails = sorted(v["email"] for v in self.people.values())
        self.token, self.token_left = None, 0
        self.shown: set[str] = set()
        docs = "\n".join(f"  GET {path}: {what}" for path, what in ENDPOINTS)
        return (
            f"You query a company's REST API to answer: what is the email address of {question}?\n"
            f"Every GET needs a token from \\boxed{{login}}; a token is good for {self.ttl} GET calls, then log in\n"
            "again. A call with an expired, revoked or unknown token fails. Endpoints (ID is an id like E104):\n"
            f"{docs}\n"
            "Commands:\n"
            "  \\boxed{login}: get a fresh token\n"
            "  \\boxed{get PATH TOKEN}: call an endpoint, e.g. \\boxed{get /employees/E104 tk-0a1b2c}\n"
            "  \\boxed{answer EMAIL}: answer the question; a wrong answer loses.\n"
            "Example: \\boxed{login}"
        )

    def _hire(self, first: str, last: str, manager: str | None) -> str:
        pid = f"E{self.rng.randint(100, 999)}"
        while pid in self.people:
            pid = f"E{self.rng.randint(100, 999)}"
        old_manager = self.rng.choice(self.staff) if self.people else None
        self.people[pid] = {"first": first, "last": last, "dept": self.rng.choice(DEPTS), "manager": manager,
                            "email": f"{first[0].lower()}.{last.lower()}{pid[1:]}@corp.example",
                            "old_manager": old_manager, "old_email": f"{first.lower()}.{last.lower()}@oldcorp.example"}
        insort(self.staff, pid)
        return pid

    def _chain(self, start: str) -> tuple[list[str], str, str]:
        """The calls an agent must make, the person whose email is asked, and the question's subject."""
        rng, person = self.rng, start
        who = self.people[start]
        phrase = f"{who['first']} {who['last']} from {who['dept']}"
        plan, hops = [f"/employees?last={who['last']}"], self.params["hops"]
        while hops > 0:
            manager = self.people[person]["manager"]
            if hops >= 3 and (manager is None or rng.random() < 0.5):
                project, ticket = self._lead_project(person)
                role = rng.choice(["reporter", "assignee"])
                plan += [f"/employees/{person}/projects", f"/projects/{project}/tickets", f"/tickets/{ticket}"]
                phrase = f"the {role} of the highest-priority open ticket of the project led by {phrase}"
                person, hops = self.tickets[ticket][role], hops - 3
            elif manager is not None:
                plan.append(f"/employees/{person}")
                phrase, person, hops = f"the manager of {phrase}", manager, hops - 1
            else:  # the company's head has no manager: give them one
                self.people[person]["manager"] = self._hire(rng.choice(FIRST), rng.choice(LAST), None)
        plan.append(f"/employees/{person}")
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
            ticket = f"T{rng.randint(1000, 9999)}"
            while ticket in self.tickets:
                ticket = f"T{rng.randint(1000, 9999)}"
            self.tickets[ticket] = {"project": project, "priority": priority, "open": i > 0 or rng.random() < 0.5,
                                    "reporter": rng.choice(staff), "assignee": rng.choice(staff),
                                    "title": rng.choice(TOPICS)}
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
            rows = [f"{pid} | {v['first']} {v['last']} | {v['dept']}" for pid, v in sorted(self.people.items())
                    if v["last"] == name]
            return "\n".join(rows) or "(no employees)"
        parts = path.upper().strip("/").split("/")
        stale = parts[0] == "V1"
        kind, key, *rest = parts[1:] if stale else parts
        if kind == "EMPLOYEES" and key in self.people and not rest:
            who = self.people[key]
            email, manager = (who["old_email"], who["old_manager"]) if stale else (who["email"], who["manager"])
            return f"{key} | {who['first']} {who['last']} | {who['dept']} | {email} | manager: {manager or 'none'}"
        if stale:
            return None
        if kind == "EMPLOYEES" and key in self.people and rest == ["PROJECTS"]:
            rows = [f"{p} | {'lead' if v['lead'] == key else 'member'}" for p, v in sorted(self.projects.items())
                    if v["lead"] == key or key in v["members"]]
            return "\n".join(rows) or "(no projects)"
        if kind == "PROJECTS" and key in self.projects and rest == ["TICKETS"]:
            return "\n".join(f"{t} | priority {v['priority']} | {'open' if v['open'] else 'closed'}"
                             for t, v in sorted(self.tickets.items()) if v["project"] == key)
        if kind == "TICKETS" and key in self.tickets and not rest:
            t = self.tickets[key]
            return f"{key} | {t['title']} | reporter: {t['reporter']} | assignee: {t['assignee']}"
        return None

    def _reveal(self) -> str:
        return f"The answer was {self.email}."

    def oracle_action(self) -> str:
        pending = [path for path in self.plan if path not in self.shown]
        if not pending:
            return "\\boxed{answer %s}" % self.email
        if self.token is None or self.token_left <= 0:
            return "\\boxed{login}"
        return "\\boxed{get %s %s}" % (pending[0], self.token)

    def random_action(self, rng) -> str:
        roll = rng.random()
        if roll < 0.12:
            return "\\boxed{answer %s}" % rng.choice(self.emails)
        if roll < 0.25:
            return "\\boxed{login}"
        pid = rng.choice(self.staff)
        path = rng.choice([f"/employees/{pid}", f"/v1/employees/{pid}", f"/employees/{pid}/projects", "/admin/audit"])
        return "\\boxed{get %s %s}" % (path, self.token or "tk-000000")
