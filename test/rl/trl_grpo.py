"""TRL's GRPOTrainer, 5 steps on CPU, on the trl-grpo export with the shipped reward and a
tiny randomly initialized model (its tokenizer trained here on the prompts, nothing
downloaded). argv: the export's directory, an output directory. Prints the rewards logged.
"""
import json
import os
import sys

os.environ.setdefault("WANDB_MODE", "disabled")
import torch  # noqa: E402
from datasets import load_dataset  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers, trainers, decoders  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

root, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "rewards"))
from equisql_reward import reward  # noqa: E402

torch.manual_seed(0)
dataset = load_dataset("json", data_files=os.path.join(root, "rl/trl-grpo/train.jsonl"), split="train")
texts = [m["content"] for row in dataset for m in row["prompt"]] + ["```sql\nSELECT id FROM account\n```"]
bpe = Tokenizer(models.BPE(unk_token="<unk>"))
bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
bpe.decoder = decoders.ByteLevel()
bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=600, special_tokens=["<unk>", "<s>", "</s>", "<pad>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, unk_token="<unk>", bos_token="<s>", eos_token="</s>", pad_token="<pad>")
tokenizer.chat_template = "{% for m in messages %}<s>{{ m['role'] }}\n{{ m['content'] }}</s>\n{% endfor %}{% if add_generation_prompt %}<s>assistant\n{% endif %}"
model = LlamaForCausalLM(LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=4096, pad_token_id=tokenizer.pad_token_id, bos_token_id=1, eos_token_id=2))
config = GRPOConfig(output_dir=out, max_steps=5, per_device_train_batch_size=2, num_generations=2, max_completion_length=16, logging_steps=1, report_to=[], use_cpu=True, save_strategy="no", seed=0, bf16=False)
trainer = GRPOTrainer(model=model, reward_funcs=reward, args=config, train_dataset=dataset, processing_class=tokenizer)
trainer.train()
print(json.dumps({"steps": trainer.state.global_step, "rewards": [h["reward"] for h in trainer.state.log_history if "reward" in h]}))
