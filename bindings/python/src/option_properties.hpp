// Building blocks of the simulator option bindings (sim_fclub.cpp,
// sim_pfcb.cpp): the common run flags as properties of `o.run`, list fields
// that also take one value (or, for text, "a,b" as the CLI does), and
// fields the CLI spells as a word but the C++ struct holds as an enum.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "cli/run_flags.hpp"

namespace p2b::python {

template <typename T>
using OneOrMany = std::variant<T, std::vector<T>>;

template <typename T>
std::vector<T> one_or_many(const OneOrMany<T>& v) {
  if (const T* one = std::get_if<T>(&v)) return {*one};
  return std::get<std::vector<T>>(v);
}

// "a,b" -> {"a", "b"}: a text list field reads the CLI's spelling too.
inline std::vector<std::string> text_list(const OneOrMany<std::string>& v) {
  std::vector<std::string> out;
  for (const std::string& item : one_or_many(v)) {
    std::stringstream s(item);
    std::string part;
    while (std::getline(s, part, ',')) out.push_back(part);
  }
  return out;
}

// --seeds, --seed, --threads, --out, --plot, --quiet as properties reading
// and writing o.run, for any Options with a CommonRunOptions `run`.
template <typename Options>
void bind_common_run(pybind11::class_<Options>& c, const std::string& seeds_doc) {
  using R = tools::CommonRunOptions;
  const auto prop = [&c](const char* name, auto R::*field, const std::string& doc) {
    using T = std::remove_reference_t<decltype(std::declval<R&>().*field)>;
    c.def_property(
        name, [field](const Options& o) { return o.run.*field; },
        [field](Options& o, T v) { o.run.*field = v; }, doc.c_str());
  };
  prop("seeds", &R::seeds, seeds_doc);
  prop("seed", &R::seed, "--seed: the first seed");
  prop("threads", &R::threads, "--threads: worker threads (results do not depend on it)");
  prop("out", &R::out, "--out: also write the CSVs into this directory ('': write nothing)");
  prop("plot", &R::plot, "--plot (ignored in Python: use df.p2b.plot())");
  prop("quiet", &R::quiet, "--quiet: no progress bar (as progress=False)");
}

// A field held as an enum, read and written as the CLI's word for it;
// `field(o)` returns a reference to it. ValueError names the flag and the
// words it takes.
template <typename Options, typename Enum, typename Field>
void word_property(pybind11::class_<Options>& c, const char* name, const std::string& flag,
                   Field field, const std::map<std::string, Enum>& words, const char* doc) {
  c.def_property(
      name,
      [field, words](Options& o) {
        for (const auto& [word, value] : words) {
          if (value == field(o)) return word;
        }
        return std::string();
      },
      [field, words, flag](Options& o, const std::string& word) {
        const auto it = words.find(word);
        if (it == words.end()) {
          std::string allowed;
          for (const auto& w : words) allowed += (allowed.empty() ? "" : ", ") + w.first;
          throw pybind11::value_error(flag + " = " + word + ": must be one of " + allowed);
        }
        field(o) = it->second;
      },
      doc);
}

}  // namespace p2b::python
