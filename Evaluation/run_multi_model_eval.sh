#!/usr/bin/env bash
#
# Evaluate every checkpoint of a list file on every category of games, GymVerse's way:
#
#   MODEL_CHECKPOINTS_FILE=./model_ckpt.txt GPUS=0,1 ./run_multi_model_eval.sh
#
# Settings (environment variables, GymVerse's names and defaults):
#   MODEL_CHECKPOINTS_FILE  one checkpoint folder (or policy spec: tiny, random, oracle, epsilon:P) per line
#   RESULTS_BASE_DIR        results go to RESULTS_BASE_DIR/<checkpoint>_<timestamp>/<category>/
#   START_DIFFICULTY, END_DIFFICULTY, NUM_DIFFICULTIES
#                           difficulty indices START..END-1 of NUM; index i is complexity 1 + int(i / (NUM - 1) * 9)
#                           (defaults 0, 1, 1: complexity 1 only; set END_DIFFICULTY with NUM_DIFFICULTIES)
#   RUNS_PER_DIFFICULTY     instances (distinct seeds) per difficulty and game
#   ATTEMPTS_PER_INSTANCE   attempts per instance (the n of pass@k)
#   GPUS                    GPU ids; each runs every n-th game of a category in its own process. On a machine
#                           without GPUs the script says so and evaluates on the CPU in one process.
#   RESUME_TIMESTAMP        reuse <checkpoint>_<RESUME_TIMESTAMP> folders and resume their sweeps where they stopped
#   CATEGORIES              categories to evaluate (env_categories.sh lists their games); default: GymVerse's four
#   ENV_DIR                 folders of games the categories name, comma-separated (GymVerse's gem/gem/envs/example);
#                           each file runs in a jail of its own unless TRUSTED=1 (your own code only)
#   SEED, TEMPERATURE, PROMPT_TEMPLATE, WRAPPERS, MAX_TOKENS, MAX_MODEL_LEN, VEC_BATCH_SIZE, MAX_TURNS
#                           how each game is played (GymVerse's per-GPU evaluator reads the first seven)
#   PYTHON                  the interpreter that has gymverse installed (default: python)
#
# Then: python aggregate_results.py --results-dir "$RESULTS_BASE_DIR" --output-dir "$RESULTS_BASE_DIR"
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$SCRIPT_DIR/env_categories.sh"

MODEL_CHECKPOINTS_FILE="${MODEL_CHECKPOINTS_FILE:-$SCRIPT_DIR/model_ckpt.txt}"
RESULTS_BASE_DIR="${RESULTS_BASE_DIR:-$SCRIPT_DIR/results}"
START_DIFFICULTY="${START_DIFFICULTY:-0}"
END_DIFFICULTY="${END_DIFFICULTY:-1}"
NUM_DIFFICULTIES="${NUM_DIFFICULTIES:-1}"
RUNS_PER_DIFFICULTY="${RUNS_PER_DIFFICULTY:-16}"
ATTEMPTS_PER_INSTANCE="${ATTEMPTS_PER_INSTANCE:-1}"
GPUS="${GPUS:-0,1,2,3}"
RESUME_TIMESTAMP="${RESUME_TIMESTAMP:-}"
CATEGORIES="${CATEGORIES:-tool-use code logic game}"
ENV_DIR="${ENV_DIR:-}"

if [[ ! -f "$MODEL_CHECKPOINTS_FILE" ]]; then
    echo "ERROR: model checkpoints file not found: $MODEL_CHECKPOINTS_FILE" >&2
    exit 1
fi

args=(--models-file "$MODEL_CHECKPOINTS_FILE" --results-dir "$RESULTS_BASE_DIR"
      --num-difficulties "$NUM_DIFFICULTIES" --start-difficulty "$START_DIFFICULTY"
      --runs-per-difficulty "$RUNS_PER_DIFFICULTY" --attempts-per-instance "$ATTEMPTS_PER_INSTANCE"
      --gpus "$GPUS" --resume-timestamp "$RESUME_TIMESTAMP"
      --seed "${SEED:-42}" --temperature "${TEMPERATURE:-0.6}" --prompt-template "${PROMPT_TEMPLATE:-qwen3_game}"
      --wrappers "${WRAPPERS:-concat}" --max-tokens "${MAX_TOKENS:-8192}" --vec-batch-size "${VEC_BATCH_SIZE:-8}"
      --max-turns "${MAX_TURNS:-200}")
[[ -n "$END_DIFFICULTY" ]] && args+=(--end-difficulty "$END_DIFFICULTY")
[[ -n "${MAX_MODEL_LEN:-}" ]] && args+=(--max-model-len "$MAX_MODEL_LEN")
[[ "${TRUSTED:-0}" == 1 ]] && args+=(--trusted)
IFS=',' read -r -a folders <<< "$ENV_DIR"
for folder in "${folders[@]}"; do
    [[ -n "$folder" ]] && args+=(--env-dir "$folder")
done
args+=(--category)
for category in ${CATEGORIES//,/ }; do
    envs="$(get_envs_for_category "$category")" || exit 1
    args+=("$category=$envs")
done

exec "${PYTHON:-python}" -m gymverse.evaluation.multi_model "${args[@]}"
