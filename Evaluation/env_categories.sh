#!/usr/bin/env bash
#
# The categories run_multi_model_eval.sh evaluates, each a list of games.
#
# A category named "tool-use" lists its games in TOOL_USE_ENVS (upper case, "-" as "_", then _ENVS), so a
# category of your own is one more array: MY_GAMES_ENVS=("mine:*") with CATEGORIES="logic my-games" and
# ENV_DIR=path/to/mine when you run the script. An entry is an env id or a pattern of ids ("example:*" is every
# game registered from GymVerse's folder). GymVerse's games (example:...) need ENV_DIR=path/to/gem/gem/envs/example.

# Our games, from gymverse's registry by the domain each declares, so that a game added to envs/ is listed
# without an edit here. One line of ids per domain named; PYTHON is the interpreter that has gymverse installed.
builtin_games() {
    "${PYTHON:-python}" -c '
import sys
from gymverse.env import builtin_env_classes
from gymverse.env.registry import game_domain
games = builtin_env_classes()
for domain in sys.argv[1:]:
    print(*(f"gymverse:{game.__name__}" for game in games if game_domain(game) == domain))
' "$@"
}

# Tool use: several calls to a simulated service before acting (TOOL_USE_ENVS).
# Code and algorithms: work out a result by querying a structure (CODE_ENVS).
# Logic: deduction and constraint satisfaction (LOGIC_ENVS).
# Games: puzzles and strategy with hidden state (GAME_ENVS).
{ read -r -a TOOL_USE_ENVS; read -r -a CODE_ENVS; read -r -a LOGIC_ENVS; read -r -a GAME_ENVS; } \
    < <(builtin_games tool_use algorithms logic games)

# GymVerse's own evaluation set (8 games per category; run with ENV_DIR=path/to/gem/gem/envs/example):
# TOOL_USE_ENVS=(example:ArtisanToolroom example:OperatorOrchestra example:ToolchestMaestro example:ApplianceWard
#                example:CampusWeave example:ErrandLedger example:ShoppingScout example:PortfolioForgeStride)
# GAME_ENVS=(example:AlchemyCraft example:BeaconCorridorNavigator example:DetectiveDeductionGame
#            example:DungeonPartyPlanning example:GuildRegionsGame example:LexemeCipher example:MysteryMansionGame
#            example:RaidPartyPlanner)
# CODE_ENVS=(example:CodeBugFix example:CodeCoveragePlanner example:CodeGraphRecursion example:AlgorithmDAG
#            example:AlgorithmWorkbench example:BooleanCircuitSynthesis example:GraphCycleStreaming
#            example:SortingStrategy)
# LOGIC_ENVS=(example:AxiomOracleDeduction example:InferenceOrbit example:SequentSmith example:HornTrailEntailer
#             example:EntailmentSeeker example:ClauseWitnessQuest example:AxiomDelver example:ParityModelCrafter)

# The games of a category, one line, separated by spaces.
get_envs_for_category() {
    local array
    array="$(echo "$1" | tr '[:lower:]-' '[:upper:]_')_ENVS"
    if ! declare -p "$array" &>/dev/null; then
        echo "ERROR: unknown category '$1': define $array in env_categories.sh" >&2
        return 1
    fi
    local -n games="$array"
    echo "${games[@]}"
}
