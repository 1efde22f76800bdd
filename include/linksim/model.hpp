// SPDX-License-Identifier: Apache-2.0
// Transformer architectures for the planner: the built-in catalog (data/models/models.yaml,
// every value with its source), inline `--arch` specifications, and parameter counts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace linksim {

/// The feed-forward block: GELU (two matrices, h->f->h), SwiGLU (three: gate, up, down) or
/// squared ReLU (two, as Nemotron-4).
enum class FfnType { kGelu, kSwiGlu, kSquaredRelu };
std::string_view to_string(FfnType type);  ///< "gelu", "swiglu", "squared-relu"

/// The normalization layers: LayerNorm (weight and bias, GPT-3, Megatron GPT, Nemotron-4) or
/// RMSNorm (weight only, Llama and most later models).
enum class NormType { kLayerNorm, kRmsNorm };
std::string_view to_string(NormType type);  ///< "layernorm", "rmsnorm"

/// One decoder-only transformer. Sizes are counts (not bytes). For MoE models the first
/// `dense_layers` layers use the dense FFN of size `ffn`; the others route each token to
/// `topk` of `experts` experts of size `moe_ffn`, plus `shared_experts` always-on experts of
/// size `moe_ffn`. Attention has `heads` query heads and `kv_heads` key/value heads of
/// `head_dim` each (GQA when kv_heads < heads); the output projection maps heads*head_dim -> hidden.
/// Multi-head latent attention (MLA, DeepSeek-V2/V3) is described by `kv_lora_rank` > 0: the
/// parameters are counted from its low-rank projections, the KV cache holds the latent
/// (kv_lora_rank + rope_head_dim values per token and layer), and compute and activations treat
/// it as attention with `heads` heads of `head_dim` (docs/models.md#mla).
struct ModelSpec {
  std::string key;                  ///< catalog key, "llama3.1-70b"; "custom" for --arch
  std::string name;                 ///< "Llama-3.1-70B"
  std::vector<std::string> aliases; ///< other accepted names, matched case-insensitively
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;                 ///< hidden / heads unless the model says otherwise
  int ffn = 0;                      ///< dense FFN intermediate size
  FfnType ffn_type = FfnType::kSwiGlu;
  int vocab = 0;
  bool tied_embeddings = false;     ///< input embedding and output head share one matrix
  int experts = 0;                  ///< routed experts per MoE layer; 0 = dense model
  int topk = 0;                     ///< experts each token is routed to
  int moe_ffn = 0;                  ///< intermediate size of one expert
  int shared_experts = 0;           ///< always-active experts per MoE layer (DeepSeek, Qwen2 MoE)
  int dense_layers = 0;             ///< leading layers with the dense FFN in an MoE model
  NormType norm = NormType::kRmsNorm;
  bool linear_bias = false;         ///< every linear layer has a bias (GPT-3, Megatron GPT)
  bool qkv_bias = false;            ///< only the Q, K, V projections have biases (Qwen2)
  bool dropout = false;             ///< trained with dropout: 1-byte masks are stored (GPT-3)
  int learned_positions = 0;        ///< rows of a learned absolute position embedding (GPT-3)
  int q_lora_rank = 0;              ///< MLA: query down-projection rank (0 = no compression)
  int kv_lora_rank = 0;             ///< MLA: key/value latent rank (0 = ordinary attention)
  int rope_head_dim = 0;            ///< MLA: decoupled rotary key/query dimension per head
  double published_params = 0;      ///< the size its authors state, parameters (0 = unknown)
  double published_active_params = 0; ///< MoE: active parameters its authors state (0 = unknown)
  std::string notes;                ///< approximations (e.g. DeepSeek-V3's MLA), shown to users
  std::string source;               ///< URL(s) of the shape

  bool is_moe() const { return experts > 0; }
  bool is_mla() const { return kv_lora_rank > 0; }
  int moe_layers() const { return is_moe() ? layers - dense_layers : 0; }
};

/// Parameter counts, in parameters (not bytes), by where they live. Norm weights and biases
/// are included in the layer figures as the architecture has them.
struct ParamCounts {
  double embedding = 0;        ///< input embedding (vocab x hidden)
  double output_head = 0;      ///< output projection; 0 when tied
  double attention = 0;        ///< all layers' attention blocks (QKV, output, norms)
  double dense_ffn = 0;        ///< all dense layers' FFNs
  double expert_ffn = 0;       ///< all routed experts of all MoE layers (router included)
  double shared_expert_ffn = 0;///< all shared experts of all MoE layers
  double total = 0;            ///< everything stored
  double active = 0;           ///< used per token: all but the routed experts not chosen
  /// 6 x this x tokens is the conventional training FLOP count (excludes the embedding lookup).
  double active_non_embedding = 0;
};

/// Attention weights of one layer (QKV + output projection + norms), parameters.
double attention_params_per_layer(const ModelSpec& model);
/// One FFN of intermediate size `ffn_size` for the model's FFN type, parameters.
double ffn_params(const ModelSpec& model, int ffn_size);
ParamCounts count_params(const ModelSpec& model);

/// Values one token adds to the KV cache of one layer: 2 x kv_heads x head_dim, or for MLA the
/// latent kv_lora_rank + rope_head_dim (shared by all heads). Elements, not bytes.
double kv_cache_elements_per_token_per_layer(const ModelSpec& model);

/// The built-in models, loaded from data/models/models.yaml compiled into the library.
class ModelCatalog {
 public:
  static const ModelCatalog& builtin();
  /// Parses a catalog from YAML text; `file_name` names it in positioned ConfigErrors.
  static ModelCatalog parse(std::string_view yaml_text, std::string_view file_name);

  /// By key or alias, case-insensitively, ignoring '-', '_' and '.' differences
  /// ("Llama-3.1-70B", "llama3.1-70b", "llama31_70b"). nullptr when unknown.
  const ModelSpec* find(std::string_view name) const;
  /// As find(), but throws ConfigError naming `flag` with a did-you-mean when unknown.
  const ModelSpec& get(std::string_view name, std::string_view flag = "--model") const;
  const std::vector<ModelSpec>& models() const { return models_; }

 private:
  std::vector<ModelSpec> models_;
};

/// Parses an inline architecture: "layers=80,hidden=8192,heads=64,kv_heads=8,ffn=28672,
/// ffn_type=swiglu,vocab=128256" with optional experts, topk, moe_ffn, head_dim,
/// shared_experts, dense_layers, tied (true|false), norm (layernorm|rmsnorm), linear_bias,
/// qkv_bias, dropout (true|false), learned_positions, q_lora_rank, kv_lora_rank, rope_head_dim
/// (docs/models.md#arch). Throws ConfigError naming `flag` and the key for an unknown key, a missing required key, a non-number, or an impossible shape
/// (hidden not divisible by heads without head_dim, heads not divisible by kv_heads,
/// topk > experts, experts without topk/moe_ffn, non-positive sizes).
ModelSpec parse_arch(std::string_view spec, std::string_view flag = "--arch");

/// Checks a model's shape (the same rules as parse_arch); throws ConfigError about the
/// request field `field` ("arch").
void validate_model(const ModelSpec& model, std::string_view field);

}  // namespace linksim
