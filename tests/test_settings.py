"""The settings objects by concern: the command lines they compose keep every flag they had."""

import ast
import dataclasses
import importlib
from pathlib import Path

from gymverse.genenv.config import GenEnvArgs
from gymverse.oat.flags import GPU_ONLY_FLAGS
from gymverse.train.args import TrainArgs, ignored_flags

# The flags of each command line as the code declared them before the settings were split by concern.
TRAIN_FLAGS = """
adam_beta_1 adam_beta_2 adam_offload alpha apply_chat_template async_env asynchronous before_after_n beta bf16
cliprange collocate cpu_threads critic_type curriculum device down_steps down_threshold dump_experience_every
enable_prefix_caching env_dir env_id env_sampling eval_before_train eval_difficulty eval_envs
eval_generate_max_length eval_n eval_prompt_templates eval_steps eval_temperature eval_top_k eval_top_p
eval_wrappers evolve flash_attn gamma generate_max_length gpus gradient_checkpointing group_size jobs k_min
keep_generation_failed kl_loss_type l2 launch_type learning_rate length_norm_constant lr_scheduler lr_warmup_ratio
max_difficulty max_idle_steps max_model_len max_norm max_save_num max_train min_difficulty non_stop_fixed_reward
non_stop_penalty norm_return norm_scope num_env num_gpus_per_actor num_groups num_ppo_epochs num_samples
pi_buffer_maxlen_per_device pretrain prompt_template ratchet_accuracy ratchet_min_episodes ref_offload ref_pretrain
resume rnd_seed rollout_batch_size rollout_batch_size_per_device save_path save_steps seed seeds sft_batch_size
sft_episodes sft_epochs sft_epsilon sft_label sft_learning_rate sft_levels shm_size_mb temperature top_k top_p
train_batch_size train_batch_size_per_device train_difficulty trusted up_steps up_threshold use_wb vllm_gpu_ratio
vllm_sleep wb_group wb_org wb_project wb_run_name wrappers zero_stage
""".split()
OAT_EXAMPLE_OWN_FLAGS = """
adam_beta_1 adam_beta_2 adam_offload alpha apply_chat_template async_env asynchronous beta bf16 cliprange collocate
critic_type curriculum down_steps down_threshold dump_experience_every enable_prefix_caching env_dir env_id
env_sampling eval_difficulty eval_envs eval_generate_max_length eval_n eval_prompt_templates eval_steps
eval_temperature eval_top_k eval_top_p eval_wrappers evolve flash_attn gamma generate_max_length gpus
gradient_checkpointing group_size k_min keep_generation_failed l2 launch_type learning_rate length_norm_constant
lr_scheduler lr_warmup_ratio max_difficulty max_model_len max_norm max_save_num max_train min_difficulty
non_stop_fixed_reward non_stop_penalty norm_return norm_scope num_env num_gpus_per_actor num_groups num_ppo_epochs
num_samples pi_buffer_maxlen_per_device pretrain prompt_template ratchet_accuracy ratchet_min_episodes ref_offload
ref_pretrain rnd_seed rollout_batch_size rollout_batch_size_per_device save_path save_steps seed sft_batch_size
sft_episodes sft_epochs sft_epsilon sft_label sft_learning_rate sft_levels shm_size_mb temperature top_k top_p
train_batch_size train_batch_size_per_device train_difficulty trusted up_steps up_threshold use_wb vllm_gpu_ratio
vllm_sleep wb_group wb_org wb_project wb_run_name wrappers zero_stage
""".split()
GENENV_FLAGS = """
adam_beta_1 adam_beta_2 adam_offload alpha alternate apply_chat_template async_env asynchronous attempts band_filter
beta bf16 cliprange collocate cpu_threads critic_type curriculum device down_steps down_threshold
dump_experience_every enable_prefix_caching env_beta env_dir env_generate_max_length env_id env_learning_rate
env_model env_prompt_template env_prompts_per_step env_reward env_sampling env_sft_episodes env_temperature
env_train eval_before_train eval_difficulty eval_envs eval_generate_max_length eval_n eval_prompt_templates
eval_steps eval_temperature eval_top_k eval_top_p eval_wrappers evolve filter_overlong_prompts filtering_k
flash_attn gamma genenv_enable generate_max_length gpus gradient_checkpointing group_size invalid_reward k_min
keep_generation_failed kl_loss_type kl_penalty_coef kl_penalty_type l2 launch_type learning_rate
length_norm_constant lr_scheduler lr_warmup_ratio max_agent_episodes max_difficulty max_model_len max_norm
max_prompt_length max_save_num max_train min_difficulty non_stop_fixed_reward non_stop_penalty norm_return
norm_scope num_env num_generations_per_prompt num_gpus_per_actor num_groups num_ppo_epochs num_samples
pi_buffer_maxlen_per_device pretrain prompt_template prompts_per_step ratchet_accuracy ratchet_min_episodes
ref_offload ref_pretrain request_retries request_timeout resume reward_manager rnd_seed rollout_batch_size
rollout_batch_size_per_device save_path save_steps seed sft_batch_size sft_episodes sft_epochs sft_epsilon sft_label
sft_learning_rate sft_levels shm_size_mb steps_per_epoch task_parser task_space task_template temperature top_k
top_p total_epochs train_batch_size train_batch_size_per_device train_difficulty train_files truncation trusted
up_steps up_threshold use_wb val_batch_size val_files val_n verifier vllm_gpu_ratio vllm_sleep wb_group wb_org
wb_project wb_run_name wrappers zero_stage
""".split()
GPU_ONLY = """
adam_offload apply_chat_template asynchronous bf16 collocate critic_type enable_prefix_caching eval_top_k flash_attn
gpus launch_type num_gpus_per_actor num_groups pi_buffer_maxlen_per_device ref_offload rollout_batch_size_per_device
shm_size_mb top_k vllm_gpu_ratio vllm_sleep zero_stage
""".split()


def field_names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def oat_example_own_flags() -> set[str]:
    """The flags gymverse adds to OAT's PPOArgs on the OAT backend (its args class's other bases: importing the
    class itself needs OAT)."""
    source = Path(importlib.util.find_spec("gymverse.oat.args").origin).read_text()
    tree = ast.parse(source)
    [args_class] = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    imported = {
        alias.asname or alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    own = set()
    for base in args_class.bases:
        name = ast.unparse(base)
        if name != "PPOArgs":
            own |= field_names(getattr(importlib.import_module(imported[name]), name))
    return own


def test_gymverse_train_takes_the_flags_it_took_and_backend():
    assert sorted(field_names(TrainArgs)) == sorted([*TRAIN_FLAGS, "backend"])


def test_the_oat_backend_adds_the_flags_it_added_to_oats():
    assert sorted(oat_example_own_flags()) == sorted(OAT_EXAMPLE_OWN_FLAGS)


def test_genenv_takes_the_flags_it_took_less_the_gpu_only_ones():
    assert sorted(field_names(GenEnvArgs)) == sorted(set(GENENV_FLAGS) - set(GPU_ONLY))


def test_the_gpu_only_flags_are_the_oat_groups_and_the_native_trainer_names_them_ignored():
    assert sorted(GPU_ONLY_FLAGS) == sorted(GPU_ONLY)
    argv = ["--gpus", "4", "--no-flash-attn", "--top_k=5", "--seed", "3", "--no-norm_return"]
    assert ignored_flags(argv) == ["--gpus", "--no-flash-attn", "--top_k"]
