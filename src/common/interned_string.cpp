// SPDX-License-Identifier: Apache-2.0
// The pool behind InternedString: a set never erased from, so its strings keep their addresses.
#include "linksim/interned_string.hpp"

#include <functional>
#include <mutex>
#include <set>

namespace linksim {
namespace {

struct InternPool {
  std::mutex mutex;
  std::set<std::string, std::less<>> texts;
};

InternPool& intern_pool() {
  static auto* pool = new InternPool;  // never destroyed: handles may outlive other statics
  return *pool;
}

const std::string* intern(std::string_view text) {
  thread_local const std::string* last = nullptr;  // runs of one value are common
  if (last != nullptr && *last == text) return last;
  InternPool& pool = intern_pool();
  const std::lock_guard<std::mutex> lock(pool.mutex);
  auto it = pool.texts.find(text);
  if (it == pool.texts.end()) it = pool.texts.emplace(text).first;
  last = &*it;
  return last;
}

}  // namespace

InternedString::InternedString() {
  static const std::string* const empty = intern({});
  text_ = empty;
}

InternedString::InternedString(std::string_view text) : text_(intern(text)) {}

}  // namespace linksim
