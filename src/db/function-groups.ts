/**
 * Every function and view of the database, grouped by what it serves, with one line each: the one place that
 * `npm run db:functions` (scripts/generate-db-functions.ts) reads to lay out src/db/functions.generated.sql and the
 * list in docs/database.md. The script fails when a live function or view is missing here, or one named here is gone.
 * Triggers are grouped with the function they run.
 */
export interface FunctionGroup {
  title: string
  /** What the group does and why it lives in the database. */
  about: string
  /** Each function or view, in reading order, with its purpose in one line. */
  members: Record<string, string>
}

/** Why these live in the database, and what stays in TypeScript: the head of the generated file and of the list. */
export const DATABASE_CODE_RULES = {
  inTheDatabase: [
    "Answers are cast in one database call (`cast_likert`, `cast_pick`, `edit_answer`, `withdraw_answer`), never holding a lock across a round trip. Answers to one question run side by side: each holds the question's answering gate shared, and whatever changes what they are checked against holds it exclusively (`lock_question_answers`); only answers that reach others' rows (private ones, liquid blocks) follow each other, and the delegators of one trustee, who reach only the rows their chains lead to, do not.",
    "Counts as deltas: an answer appends its count changes (`question_figure_deltas`, `tag_vote_deltas`) instead of updating the question's row and its tags', and `fold_figure_deltas` adds them to the stored counts in batches; every reader adds the deltas not yet folded (`pending_figure_counts`, `pending_tag_votes`), so no figure read is behind. A private answer appends its tags' unreleased moves the same way (`tag_unreleased_deltas`). A delegator's first answer does the same with the weight it takes from its representative and the kept block sizes it leaves (`liquid_weight_deltas`, `liquid_block_deltas`, `fold_liquid_deltas`).",
    "Counters kept by triggers, whatever path writes (the service, `recompute`, the seed, an import, an operator's SQL): kept liquid block sizes, the tags' unreleased and published counts, the question set's version; the stored figures are generated columns over the counts.",
    'Disclosure batches enforced where every write passes: triggers on the answer and comment-vote tables record what the published figures still count of each person and release k changes together, so no path can publish a private answer on its own.',
    'Notices on commit: triggers `NOTIFY` every process of what changed (delivered at commit only), so what processes keep in memory is dropped exactly; the answer calls leave theirs to their process, which sends them after the commit.',
  ],
  inTypeScript: [
    'Validation of input and the DRF-shaped messages: the calls return an outcome word (`missing`, `closed`, …) that src/modules/votes/vote-rules.ts turns into the answer; a test reads the words back from the functions.',
    'Reads: listings, details, results, breakdowns, weighting, comparisons, opinion groups.',
    'Statistics beyond the stored figures (src/engines/statistics/), and the recomputation and check of every stored figure.',
    'Permissions (src/access/): the calls repeat only the one rule that must hold under the lock, that the question is visible to the caller.',
    'The notifications of delegators, written by the one notification writer after an answer call that says how many votes it carried.',
    "The delegation order's definition (src/db/delegation-order.ts), from which liquid_delegations is built.",
  ],
}

export const FUNCTION_GROUPS: FunctionGroup[] = [
  {
    title: 'Answering',
    about:
      "Every answer write, a likert answer or a pick, first or replacing the voter's own, an edit and a withdrawal, is one call, which takes the question's answering gate, checks the rules once (lock_answerable_question, window_refusal) and writes everything, going private and carrying others' votes included (docs/votes.md; docs/statistics.md, Read exactly while answers arrive).",
    members: {
      cast_likert:
        "a likert answer, first or replacing the voter's own, alone: cast_likert_moves, then the counts, tags and counters it moved, at once; returns how many votes a first public answer carries",
      cast_pick: 'a pick of a multiple-choice question, first or replacing, alone: cast_pick_moves, then what it moved',
      cast_likert_moves:
        "the likert cast itself: the rules, the answer and its history, the block and the weight it leaves; returns the counts, tags and counters it moves for its caller to write, and, when its caller asks, a first answer reaching nobody else's rows unwritten ('lone') for the caller to insert",
      cast_pick_moves: "the same for picks: the choice's answer, and the counts of the choice the voter's weight left among its moves",
      cast_likert_group:
        "likert answers that arrived together, in one transaction: cast in question order, then person order, their lone first answers inserted in one statement (before the voter's next answer to the same question, and at the end), and what they moved written at the end, counts and tags summed, counters in person order, so groups in any processes lock in one order and a group waiting on a question's lock holds nobody's counters",
      cast_pick_group: "the same for picks, in the order of the choices' questions",
      edit_answer: "a change of an answer's value, importance, privacy or collection, with its history and counts, in one call",
      withdraw_answer: "withdraws an answer: its history, its counts, the voter's block back where it counts, counters and tags",
      lock_answerable_question:
        "takes a question's answering gate shared (and the voter's own answer to it) and checks the whole ladder of answering rules (visible, kind, window, collection): the one definition",
      lock_question_answers:
        'closes the answering gate of questions (all of them when NULL or many) until the transaction ends: every change of what an answer is checked against takes it first; folds their liquid deltas',
      answer_reaches_others:
        "whether an answer reaches rows beyond the voter's own (a batch, a liquid block, others' weight), so that it waits for the question's other such answers",
      lock_answer_reach:
        "whether an answer reaches others' rows, as 'own', 'chain' (a first public answer of someone nobody delegates to: it holds the question's liquid lock shared, beside the others like it) or 'serial' (exclusively); takes that lock",
      window_refusal: "the voting window's rule: NULL when open at a moment, else 'not_open' or 'closed' (casts, edits, withdrawals)",
      lock_held_answer: "closes an answer's question's gate and locks the answer, for an edit or a withdrawal; returns it with the clock",
      replaced_answer_weight: 'the liquid weight an answer carries after a change of privacy (its block when public, 1 when private)',
      count_user_answer:
        "the user's answer counters after any change of one of their answers: at once (count_user_answer_now), or in the previous release's answer group kept for its end (count_answers_after)",
      count_user_answer_now: 'count_user_answers for one change',
      count_user_answers:
        "writes the answer counters of changes of people's answers (new, replaced, edited, withdrawn, privacy), locking the people in id order, finding the latest public time again when one stops being public: the one definition",
      count_answers_after: "writes the counters the previous release's answer group kept, at the group's end",
      make_user_answer_counts: "a new user's row of answer counters, all zero",
      move_tag_votes: 'append_tag_vote_deltas for one question',
      append_tag_vote_deltas:
        'appends the deltas of answers to the likert answer counts of the tags their questions count in, summed by tag (tag_vote_deltas)',
    },
  },
  {
    title: 'Counts and figures',
    about:
      'Answers append exact deltas to the counts of questions and choices, folded into the stored counts in batches and added by every reader until then; every stored figure is a generated column over the counts, computed by these functions as src/engines/statistics/likert.ts computes it from counts corrected per read: two texts of one rule on purpose, kept equal on every small count vector by test/statistics/likert-parity.test.ts (docs/statistics.md, Stored, and always equal to a recount).',
    members: {
      likert_count_deltas: 'an amount at one level (or skipped) as deltas to the five level counts and the skips',
      append_figure_deltas:
        "appends answers' moves (a level, or skipped, with a direct and a liquid amount) as deltas to the counts of questions and choices, one row for each question or choice moved: the one definition",
      move_likert_counts: "appends two levels' deltas (the old answer off, the new on) to a question's direct and liquid counts",
      move_choice_counts: "appends one level's deltas to a choice's direct and liquid counts",
      fold_figure_deltas:
        "folds the answers' count deltas and, unless only some questions are asked for, the tags' unreleased deltas (the one fold the serving processes, check and recompute call)",
      fold_count_deltas:
        "adds the answers' deltas to the stored counts of questions, choices and tags in one transaction, one fold at a time; rows others hold wait for the next",
      pending_figure_counts: 'view: the deltas not yet folded, summed per question and choice, which every reader adds',
      pending_tag_votes: "view: the tags' deltas not yet folded, summed per tag: to the published count, the answers' less the unreleased",
      fold_liquid_deltas:
        "adds the weight deltas leaves appended to the answers their chains reach, and the kept block sizes' deltas, to the rows; without waiting, rows others hold wait for the next",
      pending_liquid_weight: 'the weight deltas of an answer not yet folded, which every reader of its weight adds',
      claim_liquid_weight: "removes an answer's weight deltas and returns their sum, for a writer about to set its weight outright",
      likert_sum: 'the sum of the levels over five level counts',
      likert_unanimous: 'the one level every count is at, or 0',
      likert_value: 'the mean level of five level counts (the `value` figure)',
      likert_heat: 'the folded intensity of five level counts (the `heat` figure)',
      likert_consensus: "Tastle and Wierman's consensus of five level counts",
      likert_polarisation: "van der Eijk's polarisation of five level counts",
    },
  },
  {
    title: 'Liquid delegation',
    about:
      "Who a vote goes to, the chain it follows and the block of people it carries, read by the answer calls under the question's lock; kept block sizes follow every answer by trigger (docs/liquid-democracy.md, Kept blocks).",
    members: {
      liquid_eligible: 'whether an account may carry weight (active, not deleted)',
      liquid_delegations: "a person's delegations on a question in the order they compete, built from src/db/delegation-order.ts",
      liquid_parent: "the trustee a person's vote goes to on a question: the first of liquid_delegations, for an eligible account",
      liquid_answer_carries: "whether a person's answer carries delegated weight: no answer (null), public and eligible, or not",
      liquid_chain: "the people a person's delegation chain passes, up to the answer it reaches; whether it loops; who holds the vote",
      liquid_representative: "the person whose answer carries a person's vote on a question, if any",
      liquid_block: "a person's liquid block on a question: its size, eligibility, and the answer their vote reaches",
      liquid_leaf_block:
        'the same for someone nobody delegates to (a block of one): the chain walked once, which the answer call then moves the kept sizes along',
      liquid_intree: "how many unanswered people's chains pass through a person: the kept size with its deltas, else a walk",
      liquid_intree_walk: 'the same by walking the delegations breadth first',
      liquid_blocks_follow:
        "moves the kept block sizes along a chain by a block's size (as deltas for a leaf's answer), or drops them when the chain loops",
      liquid_blocks_on_answer:
        "an answer written or removed moves the kept block sizes along its author's chain (a leaf's answer call moves them itself)",
    },
  },
  {
    title: 'Disclosure: private answers in batches',
    about:
      "Private answers reach a question's published figures k at a time (MIN_CELL_SIZE), whatever path writes them: a trigger keeps, per person, what the published figures still count of them, and the figures, orderings and counts read the corrections (docs/privacy.md, Batches).",
    members: {
      set_min_cell_size: 'stores k, as each process sets it at start; lowering it releases the questions that reach it',
      follow_unreleased_answer: "records a private change as unreleased, and releases the question's batch at the k-th",
      current_answer: "a person's current answer on a question, likert or pick, with its liquid weight (deltas included)",
      published_holder: "whose answer a person's vote reaches as released, walking their chain as it was",
      published_corrections: "what to add to a question's stored counts, level by level, to get its published ones",
      question_figure_sources:
        "the sources of some questions' published figures in one statement: stored counts, deltas not folded, corrections, k private tag votes",
      withheld_answers: "what a question's (or a choice's) published figures leave out, per level: sort keys equal to the figures",
      withheld_answer_count: 'how many direct answers the published figures leave out, so answer counts agree with them',
      withheld_tag_votes: "the private ratings of a question's tag while fewer than k, which its published figures leave out",
      released_question_votes: "view: each person's likert answer as released (their released private one while a change waits)",
      released_choice_votes: "view: each person's pick as released",
    },
  },
  {
    title: 'Disclosure: tag counts follow the batches',
    about:
      "A tag's votes_count as others read it counts its questions' likert answers as released, kept by triggers on every table that moves it (migration 043; docs/privacy.md, Batches); a private answer's moves of its tags' unreleased counts are appended and folded like the counts (migration 055).",
    members: {
      unreleased_vote_count: 'how many more likert answers a question holds now than it shows as released',
      settle_unreleased_votes: "brings a question's unreleased count and its tags' up to date after a write that may move it",
      question_tag_ids: "the tags a question's likert answers count in: those it carries and its topic (the one definition)",
      move_unreleased_tag_votes: "appends a delta to the unreleased counts of a question's tags and topic (tag_unreleased_deltas)",
      fold_tag_unreleased_deltas:
        "adds the tags' unreleased deltas to their stored unreleased counts; without waiting, rows others hold wait for the next",
      publish_tag_votes: 'sets published_votes_count: votes_count less the unreleased count',
      follow_unreleased_tag_votes: "settles the question's count when its unreleased changes move",
      follow_answer_unreleased_tag_votes: "settles the question's count when an answerer with a change waiting answers or withdraws",
      follow_question_tag_unreleased_votes: "moves a question's unreleased count between the tags it gains and loses",
      follow_topic_unreleased_votes: "moves a question's unreleased count when its topic changes",
      forget_question_unreleased_tag_votes: 'a question removed takes its unreleased count off its tags',
    },
  },
  {
    title: 'Disclosure: comment votes in batches',
    about:
      "Private comment votes reach a comment's published tallies k at a time, as private answers reach a question's figures (migration 042; docs/privacy.md, Batches).",
    members: {
      follow_unreleased_comment_vote: "records what a comment's published tallies still count of each person, at their first change",
      release_comment_vote_batch: "releases a comment's waiting changes once k of them wait, at commit",
      release_comment_votes_at_k: 'lowering k releases the comments that reach it',
      published_comment_corrections: "what to add to a comment's stored tallies to get its published ones",
    },
  },
  {
    title: 'Notices',
    about:
      "Every process LISTENs on one connection; these triggers tell it, at commit, what changed, so what it keeps in memory (answers, tokens and keys, people's own fields, walks, live streams) is dropped exactly (docs/operations.md, Answers kept in memory; src/db/data-changes.ts).",
    members: {
      notify_data_changed: 'a change of a table any public answer reads: `data_changed`',
      notify_question_figures: "a question's figures or choices changed: `question_figures` with its id, for live results",
      notify_collection_items: "a collection's questions changed: `collection_items` with its id",
      notify_notifications_created: 'notifications were written: `notifications_created`, for push delivery',
      notify_credentials_changed: "a token revoked or moved, or an account's standing changed: `credentials_changed` with the user",
      notify_app_key_changed: 'an application key revoked, re-hashed or removed: `credentials_changed` with `app-key:<id>`',
      notify_own_changed: "people's follow links or questions (drafts) changed: `own_changed` with their ids (past 100: anyone)",
      notify_anyone_own_changed: 'answers written outside the answer calls, or a truncate: `own_changed` for anyone',
      notify_author_own_changed: 'a question published, unpublished or given another author: `own_changed` with both authors',
      bump_question_set_version: "moves the question set's version once per transaction, at commit, and sends `question_set`",
    },
  },
]
