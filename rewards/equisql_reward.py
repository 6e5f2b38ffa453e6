"""equisql's execution reward for reinforcement learning on an equisql RL export.

Python standard library only (sqlite3); psycopg is imported only when a reward is asked to
run on PostgreSQL. The file lives in DIR/rewards/ of the export, and database paths in a
ground truth are relative to DIR (override with root= or EQUISQL_REWARD_ROOT).

Entry points, one per framework (docs/rl.md):
- verl:      compute_score(data_source, solution_str, ground_truth, extra_info, **options)
             (lists in place of each argument: verl's batch reward manager)
- TRL:       reward(completions, **columns) -> list[float]   (GRPOTrainer's reward_funcs)
- OpenRLHF:  reward_func(queries, prompts, labels)           (--remote_rm_url this file)
- agents:    SqlEnvironment (TRL's environment_factory; verl's tool in equisql_verl_tool.py)

The SQL of a completion: reasoning blocks (<think>, <reasoning>) are dropped, an unclosed one
to the end; then the last <answer>/<sql> tag's content if any, then in it (or in the whole
text) the last fenced block (```sql ... ``` or ``` ... ```); else the whole text, trimmed.
(`equisql eval` reads the first fenced block of a reply; a model that drafts and corrects
ends with its answer, so the reward reads the last.)

Scoring follows equisql's answer rules: the prediction runs on the variant's main instance
and, when it gave rows there, on the edge-case instance; rows are tuples of text (NULL as
None), array values ({a,b}) compared as sets, rows sorted unless the answer is ordered,
duplicates kept. 1.0 only when every instance matches; 0.0 for no SQL, refused, failed,
timed-out or over-cap SQL; `partial` (default 0.0) for SQL that gives rows and a wrong
answer. With `consistency` > 0, a batch reward mixes in agreement: the share `consistency` of
a row's score is 1 when another row of the batch asks the same question on another variant
and the two answers are equal on every instance (agreement, not correctness).

The model's SQL is hostile: the file is opened read-only and immutable (mode=ro&immutable=1),
with query_only set, an authorizer that allows reading and selected functions only (no
ATTACH, PRAGMA, writes, load_extension, the sqlite_ catalog), a length limit on every value,
a progress handler that stops it after `timeout` seconds, and caps on rows and bytes read.
"""

import json
import os
import re
import sqlite3
import time

ROOT = os.environ.get("EQUISQL_REWARD_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULTS = {
    "timeout": float(os.environ.get("EQUISQL_REWARD_TIMEOUT", "5")),
    "max_rows": int(os.environ.get("EQUISQL_REWARD_MAX_ROWS", "100000")),
    "max_bytes": int(os.environ.get("EQUISQL_REWARD_MAX_BYTES", "16000000")),
    "partial": float(os.environ.get("EQUISQL_REWARD_PARTIAL", "0")),
    "consistency": float(os.environ.get("EQUISQL_REWARD_CONSISTENCY", "0")),
    "engine": os.environ.get("EQUISQL_REWARD_ENGINE", "sqlite"),
    "postgres_dsn": os.environ.get("EQUISQL_REWARD_POSTGRES_DSN", ""),
}
FORMAT = "equisql-rl/1"

# ---------------------------------------------------------------------------- extraction

_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?(</\1>|\Z)", re.S | re.I)
_TAG = re.compile(r"<(answer|sql)>(.*?)</\1>", re.S | re.I)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.S)


def extract_sql(text):
    """The SQL of a completion (see the module's doc), or None when there is none."""
    if isinstance(text, list):  # a conversational completion: its last assistant turn
        text = next((m.get("content") or "" for m in reversed(text) if m.get("role") == "assistant"), "")
    if not isinstance(text, str):
        return None
    text = _REASONING.sub("", text)
    tags = _TAG.findall(text)
    if tags:
        text = tags[-1][1]
    fences = _FENCE.findall(text)
    if fences:
        text = fences[-1][1]
    text = text.strip()
    return text or None


# ---------------------------------------------------------------------------- answer rules

def value_text(v):
    """A SQLite value as equisql's export prints it: the gold answers were printed the same way."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return "\\x" + bytes(v).hex()
    return str(v)


def _array_elements(text):
    if len(text) < 2 or text[0] != "{" or text[-1] != "}":
        return None
    body = text[1:-1]
    if body == "":
        return []
    out, i, n = [], 0, len(body)
    while i <= n:
        j = i
        if j < n and body[j] == '"':
            j += 1
            while j < n and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            if j >= n:
                return None
            j += 1
        else:
            while j < n and body[j] != ",":
                if body[j] in '{}"':
                    return None
                j += 1
        if j < n and body[j] != ",":
            return None
        out.append(body[i:j])
        i = j + 1
        if j == n:
            break
    return out


def _utf16(s):
    # JavaScript compares strings by UTF-16 code units; so does equisql, so this order is its order.
    return s.encode("utf-16-be", "surrogatepass")


def _set_text(text):
    elements = _array_elements(text)
    if not elements or len(elements) < 2:
        return text
    return "{" + ",".join(sorted(elements, key=_utf16)) + "}"


def _row_key(row):
    return tuple((0, b"") if v is None else (1, _utf16(v)) for v in row)


def normalize(rows, ordered):
    """Rows as equisql compares them: arrays as sets, sorted unless ordered, duplicates kept."""
    out = [
        [None if v is None else _set_text(v) for v in row] if any(v is not None and v[:1] == "{" for v in row) else list(row)
        for row in rows
    ]
    return out if ordered else sorted(out, key=_row_key)


def answer_hash(rows):
    """`equisql eval`'s hash of normalized rows (sha256 of their JSON), for PostgreSQL answers."""
    import hashlib

    return hashlib.sha256(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------------------- the guard

_ALLOWED_FUNCTIONS = None  # every function but the denied ones below
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "sqlite_offset", "randomblob", "zeroblob"}
_LEAD = re.compile(r"\A(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.S)


class Refused(Exception):
    pass


class Timeout(Exception):
    pass


class OverCap(Exception):
    pass


def _authorizer(action, arg1, arg2, dbname, source):
    if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE):
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_READ:
        return sqlite3.SQLITE_DENY if (arg1 or "").lower().startswith("sqlite_") else sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_DENY if (arg2 or "").lower() in _DENIED_FUNCTIONS else sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


class _Connection:
    """One SQLite file opened read-only and immutable, guarded."""

    def __init__(self, path):
        uri = "file:" + path.replace("?", "%3f").replace("#", "%23") + "?mode=ro&immutable=1"
        self.conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA query_only = 1")
        self.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 1_000_000)
        self.conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        self.conn.set_authorizer(_authorizer)
        self.deadline = 0.0
        self.conn.set_progress_handler(self._progress, 2000)

    def _progress(self, *_):
        return 1 if time.monotonic() > self.deadline else 0

    def run(self, sql, timeout, max_rows, max_bytes):
        self.deadline = time.monotonic() + timeout
        try:
            cursor = self.conn.execute(sql)
            rows, size = [], 0
            while True:
                chunk = cursor.fetchmany(256)
                if not chunk:
                    break
                for row in chunk:
                    texts = [value_text(v) for v in row]
                    size += sum(len(t) for t in texts if t is not None) + len(texts)
                    rows.append(texts)
                if len(rows) > max_rows or size > max_bytes:
                    raise OverCap(f"more than {max_rows} rows or {max_bytes} bytes")
            return rows
        except sqlite3.DatabaseError as error:
            if time.monotonic() > self.deadline or "interrupted" in str(error):
                raise Timeout(f"over {timeout} s") from None
            if "not authorized" in str(error) or "prohibited" in str(error):
                raise Refused(str(error)) from None
            raise
        except sqlite3.ProgrammingError as error:  # a second statement
            raise Refused(str(error)) from None
        except sqlite3.Warning as error:
            raise Refused(str(error)) from None


_connections = {}


def _connection(path):
    conn = _connections.get(path)
    if conn is None:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no SQLite file (the export's databases are relative to {ROOT})")
        conn = _connections[path] = _Connection(path)
    return conn


def guard_text(sql):
    """None when `sql` is one SELECT or WITH statement, else why it is refused."""
    body = _LEAD.sub("", sql, count=1)
    word = re.match(r"[A-Za-z]+", body)
    if not word or word.group(0).lower() not in ("select", "with"):
        return "only one SELECT (or WITH … SELECT) is run"
    stripped = sql.strip().rstrip(";").strip()
    if not sqlite3.complete_statement(stripped + ";") or ";" in _strip_literals(stripped):
        return "one statement only"
    return None


def _strip_literals(sql):
    return re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", "", sql, flags=re.S)


def run_sql(path, sql, options):
    """(outcome, rows or message) of `sql` on the SQLite file `path`: rows, refused, error, timeout, over-cap."""
    why = guard_text(sql)
    if why:
        return "refused", why
    try:
        return "rows", _connection(path).run(sql, options["timeout"], options["max_rows"], options["max_bytes"])
    except Refused as e:
        return "refused", str(e)
    except Timeout as e:
        return "timeout", str(e)
    except OverCap as e:
        return "over-cap", str(e)
    except (sqlite3.Error, OverflowError, MemoryError, ValueError) as e:
        return "error", str(e).split("\n")[0]


def _run_postgres(instance, sql, options):
    import psycopg  # only here: the reward on SQLite needs nothing outside the standard library

    why = guard_text(sql)
    if why:
        return "refused", why
    dsn = options["postgres_dsn"]
    if not dsn:
        raise ValueError("engine=postgres needs postgres_dsn (or EQUISQL_REWARD_POSTGRES_DSN)")
    with psycopg.connect(dsn, autocommit=False) as conn:
        try:
            conn.execute("SET TRANSACTION READ ONLY")
            conn.execute("SELECT set_config('search_path', %s, true), set_config('statement_timeout', %s, true)", (instance["postgres"]["schema"], str(int(options["timeout"] * 1000))))
            cursor = conn.execute(sql, prepare=False)
            result = cursor.pgresult
            rows = [[None if result.get_value(r, c) is None else result.get_value(r, c).decode("utf-8") for c in range(result.nfields)] for r in range(min(result.ntuples, options["max_rows"] + 1))]
            if len(rows) > options["max_rows"]:
                return "over-cap", f"more than {options['max_rows']} rows"
            return "rows", rows
        except psycopg.errors.QueryCanceled as e:
            return "timeout", str(e).split("\n")[0]
        except psycopg.Error as e:
            return "error", str(e).split("\n")[0]
        finally:
            conn.rollback()


# ---------------------------------------------------------------------------- scoring

_truths = {}


def _prepared(truth):
    if truth.get("format") != FORMAT:
        raise ValueError(f"ground truth of format {truth.get('format')!r}, this reward reads {FORMAT}")
    ordered = truth["rules"]["ordered"]
    for instance in truth["instances"]:
        if instance.get("rows") is not None and "_gold" not in instance:
            instance["_gold"] = normalize(instance["rows"], ordered)
    return truth


def _truth(ground_truth):
    if isinstance(ground_truth, dict):  # already read (a framework that parsed the JSON)
        return _prepared(ground_truth)
    truth = _truths.get(ground_truth)
    if truth is None:
        truth = _prepared(json.loads(ground_truth))
        if len(_truths) > 50_000:
            _truths.clear()
        _truths[ground_truth] = truth
    return truth


def _options(overrides):
    options = dict(DEFAULTS)
    options.update({k: v for k, v in overrides.items() if k in DEFAULTS or k == "root"})
    return options


def verdict(sql, ground_truth, **options):
    """The full verdict of one prediction: {score, outcome, correct, correct_main, correct_edge, answers, message}."""
    options = _options(options)
    truth = _truth(ground_truth)
    root = options.get("root") or ROOT
    ordered = truth["rules"]["ordered"]
    result = {"outcome": "missing", "message": "no SQL in the completion", "correct": False, "answers": None}
    if sql is None:
        return dict(result, score=0.0)
    answers, matches = [], []
    for i, instance in enumerate(truth["instances"]):
        if options["engine"] == "postgres":
            outcome, rows = _run_postgres(instance, sql, options)
        else:
            if instance.get("sqlite") is None:
                raise ValueError(f"group {truth['group_id']} variant {truth['variant']}: no SQLite file in the export (use engine=postgres)")
            outcome, rows = run_sql(os.path.join(root, instance["sqlite"]), sql, options)
        if outcome != "rows":
            return dict(result, outcome=outcome, message=rows, score=0.0, answers=None, correct_main=bool(matches and matches[0]))
        normalized = normalize(rows, ordered)
        if options["engine"] == "postgres":
            answer = answer_hash(normalized)
            matches.append(answer == instance["postgres"]["hash"])
        else:
            answer = normalized
            matches.append(normalized == instance["_gold"])
        answers.append(answer)
    correct = all(matches)
    return {
        "outcome": "rows",
        "message": None,
        "correct": correct,
        "correct_main": matches[0],
        "correct_edge": matches[-1] if len(matches) > 1 else True,
        "answers": answers,
        "score": 1.0 if correct else float(options["partial"]),
    }


def score(completion, ground_truth, **options):
    """The reward of one completion (text or chat messages) against its ground truth."""
    return verdict(extract_sql(completion), ground_truth, **options)["score"]


def _batch(completions, ground_truths, options):
    verdicts = [verdict(extract_sql(c), g, **options) for c, g in zip(completions, ground_truths)]
    weight = float(_options(options)["consistency"])
    scores = [v["score"] for v in verdicts]
    if weight <= 0:
        return scores
    keys = []
    for g in ground_truths:
        t = _truth(g)
        keys.append((t["dataset"], t["question_id"], t["variant"]))
    out = []
    for i, v in enumerate(verdicts):
        agree = v["answers"] is not None and any(
            j != i and keys[j][:2] == keys[i][:2] and keys[j][2] != keys[i][2] and verdicts[j]["answers"] == v["answers"] for j in range(len(verdicts))
        )
        out.append((1 - weight) * scores[i] + weight * (1.0 if agree else 0.0))
    return out


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **options):
    """verl's contract. With lists (verl's batch reward manager) it returns a list of scores."""
    if isinstance(solution_str, (list, tuple)) and (not solution_str or isinstance(solution_str[0], str)) and isinstance(ground_truth, (list, tuple)):
        return _batch(list(solution_str), list(ground_truth), options)
    return score(solution_str, ground_truth, **options)


def reward(completions, ground_truth=None, **columns):
    """TRL GRPOTrainer's reward function: the dataset's `ground_truth` column arrives as a keyword."""
    options = {k: v for k, v in columns.items() if k in DEFAULTS or k == "root"}
    return _batch(list(completions), list(ground_truth), options)


def reward_func(queries, prompts, labels, **options):
    """OpenRLHF's remote reward function: the completion is the query after its prompt."""
    completions = [q[len(p):] if q.startswith(p) else q for q, p in zip(queries, prompts)]
    scores = _batch(completions, list(labels), options)
    try:
        import torch

        scores = torch.tensor(scores, dtype=torch.float32)
    except ImportError:
        pass
    return {"rewards": scores, "scores": scores, "extra_logs": {}}


# ---------------------------------------------------------------------------- the agent environment

class SqlEnvironment:
    """A multi-turn environment over one row's databases: the model explores with
    `execute_sql` (a result as truncated text, on the main instance only), then `submit`s
    its final query, which is scored as `reward` scores it. For TRL's `environment_factory`
    (its `reset` receives the row's columns) and verl's tool (equisql_verl_tool.py).
    """

    MAX_TEXT = 2000
    MAX_ROWS_SHOWN = 20

    def __init__(self, **options):
        self.options = options
        self.truth = None
        self.final = None
        self.calls = 0

    def reset(self, ground_truth=None, **row):
        self.truth = _truth(ground_truth) if ground_truth is not None else None
        self.final = None
        self.calls = 0
        return None

    def execute_sql(self, sql: str) -> str:
        """Run one read-only SELECT on the database and see the first rows.

        Args:
            sql: one SELECT (or WITH … SELECT) statement.

        Returns:
            The result as text (the first rows, truncated), or the error.
        """
        self.calls += 1
        if self.truth is None:
            return "error: no task (reset first)"
        instance = self.truth["instances"][0]
        options = _options(self.options)
        if options["engine"] == "postgres":
            outcome, rows = _run_postgres(instance, sql, options)
        else:
            outcome, rows = run_sql(os.path.join(options.get("root") or ROOT, instance["sqlite"]), sql, options)
        if outcome != "rows":
            return f"{outcome}: {rows}"
        lines = ["\t".join("NULL" if v is None else v for v in row) for row in rows[: self.MAX_ROWS_SHOWN]]
        more = f"\n… {len(rows) - self.MAX_ROWS_SHOWN} more rows" if len(rows) > self.MAX_ROWS_SHOWN else ""
        text = f"{len(rows)} rows\n" + "\n".join(lines) + more
        return text if len(text) <= self.MAX_TEXT else text[: self.MAX_TEXT] + "\n… (truncated)"

    def submit(self, sql: str) -> str:
        """Submit the final SQL query that answers the question.

        Args:
            sql: the final query.

        Returns:
            An acknowledgement; the answer is scored after the episode.
        """
        self.final = sql
        return "submitted"

    def get_reward(self) -> float:
        if self.truth is None or self.final is None:
            return 0.0
        return verdict(self.final.strip() or None, self.truth, **self.options)["score"]
