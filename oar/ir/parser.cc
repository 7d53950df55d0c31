#include "oar/ir/parser.h"

#include <cctype>
#include <cstdlib>
#include <unordered_map>

#include "oar/ir/builder.h"
#include "oar/ir/op_registry.h"

namespace oar::ir {

namespace {

enum class Tok { End, Ident, ValueName, Int, Float, String, Punct };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // identifier, value name (without %), number text, string contents, punctuation
  int line = 1, col = 1;
};

const char* tok_desc(Tok k) {
  switch (k) {
    case Tok::End: return "end of input";
    case Tok::Ident: return "identifier";
    case Tok::ValueName: return "value";
    case Tok::Int: return "integer";
    case Tok::Float: return "float";
    case Tok::String: return "string";
    case Tok::Punct: return "punctuation";
  }
  return "?";
}

class Lexer {
 public:
  explicit Lexer(const std::string& s) : s_(s) {}

  Token next() {
    skip_space();
    Token t;
    t.line = line_;
    t.col = col_;
    if (i_ >= s_.size()) return t;
    const char c = s_[i_];
    auto ident_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.'; };
    if (c == '%') {
      advance();
      t.kind = Tok::ValueName;
      while (i_ < s_.size() && ident_char(s_[i_])) t.text += advance();
      if (t.text.empty()) error(t, "a value name after '%'");
      return t;
    }
    if (c == '"') {
      advance();
      t.kind = Tok::String;
      while (true) {
        if (i_ >= s_.size() || s_[i_] == '\n') error(t, "a closing '\"'");
        char ch = advance();
        if (ch == '"') break;
        if (ch == '\\') {
          if (i_ >= s_.size()) error(t, "an escape after '\\'");
          char e = advance();
          if (e == 'n') t.text += '\n';
          else if (e == 't') t.text += '\t';
          else if (e == 'x') {
            std::string hex;
            for (int k = 0; k < 2 && i_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[i_])); ++k)
              hex += advance();
            if (hex.size() != 2) error(t, "two hex digits after '\\x'");
            t.text += static_cast<char>(std::strtol(hex.c_str(), nullptr, 16));
          } else t.text += e;
        } else {
          t.text += ch;
        }
      }
      return t;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+') {
      t.kind = Tok::Int;
      t.text += advance();
      if ((c == '-' || c == '+') && i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_]))) {
        while (i_ < s_.size() && ident_char(s_[i_])) t.text += advance();  // -inf, -nan
        if (t.text != "-inf" && t.text != "-nan" && t.text != "+inf") error(t, "a number");
        t.kind = Tok::Float;
        return t;
      }
      while (i_ < s_.size()) {
        char ch = s_[i_];
        if (std::isdigit(static_cast<unsigned char>(ch))) {
          t.text += advance();
        } else if (ch == '.' || ch == 'e' || ch == 'E') {
          t.kind = Tok::Float;
          t.text += advance();
          if ((ch == 'e' || ch == 'E') && i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) t.text += advance();
        } else {
          break;
        }
      }
      if (t.text == "-" || t.text == "+") error(t, "a digit after the sign");
      return t;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      t.kind = Tok::Ident;
      while (i_ < s_.size() && ident_char(s_[i_])) t.text += advance();
      if (t.text == "inf" || t.text == "nan") t.kind = Tok::Float;
      return t;
    }
    if (std::string("(){}[],=:^").find(c) != std::string::npos) {
      t.kind = Tok::Punct;
      t.text = advance();
      return t;
    }
    t.kind = Tok::Punct;
    t.text = c;
    error(t, "a token (unexpected character)");
  }

  [[noreturn]] static void error(const Token& at, const std::string& expected) {
    const std::string got = at.kind == Tok::End ? "end of input" : "'" + at.text + "'";
    OAR_THROW(InvalidArgument, "IR parse error at line ", at.line, ":", at.col, ": expected ", expected, ", got ",
              got);
  }

 private:
  char advance() {
    char c = s_[i_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }
  void skip_space() {
    while (i_ < s_.size()) {
      if (std::isspace(static_cast<unsigned char>(s_[i_]))) {
        advance();
      } else if (s_[i_] == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {  // // comment
        while (i_ < s_.size() && s_[i_] != '\n') advance();
      } else {
        break;
      }
    }
  }
  const std::string& s_;
  size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

class Parser {
 public:
  explicit Parser(const std::string& text) : lex_(text) { tok_ = lex_.next(); }

  std::unique_ptr<Program> program() {
    auto p = std::make_unique<Program>();
    expect_ident("program");
    expect("{");
    scopes_.emplace_back();
    block_body(p->block());
    expect("}");
    if (tok_.kind != Tok::End) Lexer::error(tok_, "end of input after the program");
    return p;
  }

  Attribute lone_attribute() {
    Attribute a = attribute();
    if (tok_.kind != Tok::End) Lexer::error(tok_, "end of input after the attribute");
    return a;
  }

 private:
  using Scope = std::unordered_map<std::string, Value*>;

  bool is(const char* punct) const { return tok_.kind == Tok::Punct && tok_.text == punct; }
  bool is_ident(const char* word) const { return tok_.kind == Tok::Ident && tok_.text == word; }
  Token take() {
    Token t = tok_;
    tok_ = lex_.next();
    return t;
  }
  void expect(const char* punct) {
    if (!is(punct)) Lexer::error(tok_, std::string("'") + punct + "'");
    take();
  }
  void expect_ident(const char* word) {
    if (!is_ident(word)) Lexer::error(tok_, std::string("'") + word + "'");
    take();
  }
  [[noreturn]] void fail(const Token& at, const std::string& msg) {
    OAR_THROW(InvalidArgument, "IR parse error at line ", at.line, ":", at.col, ": ", msg);
  }

  Value* lookup(const Token& t) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(t.text);
      if (f != it->end()) return f->second;
    }
    fail(t, "use of undefined value %" + t.text);
  }
  void define(const Token& t, Value* v) {
    for (auto& s : scopes_)
      if (s.count(t.text)) fail(t, "value %" + t.text + " is defined twice");
    scopes_.back()[t.text] = v;
  }

  // Ops until '}' or '^' (the next block).
  void block_body(Block& b) {
    while (!is("}") && !is("^")) {
      if (tok_.kind == Tok::End) Lexer::error(tok_, "an op or '}'");
      operation(b);
    }
  }

  int64_t integer() {
    if (tok_.kind != Tok::Int) Lexer::error(tok_, "an integer");
    Token t = take();
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(t.text.c_str(), &end, 10);
    if (errno == ERANGE || *end) fail(t, "integer '" + t.text + "' out of range");
    return v;
  }
  double floating() {
    if (tok_.kind != Tok::Float && tok_.kind != Tok::Int) Lexer::error(tok_, "a number");
    Token t = take();
    return std::strtod(t.text.c_str(), nullptr);
  }

  TensorType type() {
    if (tok_.kind != Tok::Ident) Lexer::error(tok_, "a type such as float32[2, -1]");
    Token t = take();
    DType dt;
    try {
      dt = dtype_from_name(t.text);
    } catch (const Error&) {
      fail(t, "unknown dtype '" + t.text + "'");
    }
    expect("[");
    std::vector<int64_t> shape;
    while (!is("]")) {
      if (!shape.empty()) {
        if (!is(",")) Lexer::error(tok_, "',' or ']'");
        take();
      }
      Token at = tok_;
      int64_t d = integer();
      if (d < -1) fail(at, "dims must be >= 0 or -1 (unknown), got " + std::to_string(d));
      shape.push_back(d);
    }
    expect("]");
    return TensorType(dt, shape);
  }

  Attribute attribute() {
    if (tok_.kind == Tok::Int) return Attribute::integer(integer());
    if (tok_.kind == Tok::Float) return Attribute::floating(floating());
    if (tok_.kind == Tok::String) return Attribute::string(take().text);
    if (tok_.kind != Tok::Ident) Lexer::error(tok_, "an attribute value");
    if (is_ident("true") || is_ident("false")) return Attribute::boolean(take().text == "true");
    if (is_ident("none")) {
      take();
      return Attribute::none();
    }
    if (is_ident("ints") || is_ident("floats")) {
      const bool ints = take().text == "ints";
      expect("[");
      std::vector<int64_t> iv;
      std::vector<double> fv;
      bool first = true;
      while (!is("]")) {
        if (!first) expect(",");
        first = false;
        if (ints) iv.push_back(integer());
        else fv.push_back(floating());
      }
      expect("]");
      return ints ? Attribute::int_array(iv) : Attribute::float_array(fv);
    }
    if (is_ident("scalar")) {
      take();
      expect("(");
      Scalar s;
      if (is_ident("true") || is_ident("false")) {
        s = Scalar(take().text == "true");
      } else if (tok_.kind == Tok::Int) {
        s = Scalar(integer());
      } else {
        double re = floating();
        if (is(",")) {
          take();
          s = Scalar(std::complex<double>(re, floating()));
        } else {
          s = Scalar(re);
        }
      }
      expect(")");
      return Attribute::scalar(s);
    }
    Token t = take();
    try {
      return Attribute::dtype(dtype_from_name(t.text));
    } catch (const Error&) {
      fail(t, "expected an attribute value (true, false, none, a number, a string, ints[...], floats[...], "
              "scalar(...) or a dtype name), got '" + t.text + "'");
    }
  }

  void operation(Block& b) {
    std::vector<Token> result_names;
    if (tok_.kind == Tok::ValueName) {
      result_names.push_back(take());
      while (is(",")) {
        take();
        if (tok_.kind != Tok::ValueName) Lexer::error(tok_, "a result value name");
        result_names.push_back(take());
      }
      expect("=");
    }
    if (tok_.kind != Tok::Ident) Lexer::error(tok_, "an op name");
    const Token name_tok = take();
    const OpDef* def = OpRegistry::global().find(name_tok.text);
    if (!def) fail(name_tok, "unknown op '" + name_tok.text + "'");
    expect("(");
    std::vector<Value*> operands;
    std::vector<uint32_t> segments;
    while (!is(")")) {
      if (!segments.empty()) expect(",");
      const size_t slot = segments.size();
      const OperandKind want = slot < def->operands.size() ? def->operands[slot].kind : OperandKind::Single;
      const Token at = tok_;
      if (is("[")) {
        take();
        uint32_t n = 0;
        while (!is("]")) {
          if (n) expect(",");
          if (tok_.kind != Tok::ValueName) Lexer::error(tok_, "a value in the operand list");
          operands.push_back(lookup(take()));
          ++n;
        }
        expect("]");
        segments.push_back(n);
        if (want != OperandKind::List) fail(at, def->name + ": operand " + std::to_string(slot) + " takes one value, not a list");
      } else if (is_ident("none")) {
        take();
        segments.push_back(0);
        if (want != OperandKind::Optional) fail(at, def->name + ": operand " + std::to_string(slot) + " is not optional");
      } else if (tok_.kind == Tok::ValueName) {
        operands.push_back(lookup(take()));
        segments.push_back(1);
        if (want == OperandKind::List) fail(at, def->name + ": operand " + std::to_string(slot) + " takes a list [...]");
      } else {
        Lexer::error(tok_, "an operand (%value, none or [...])");
      }
    }
    const Token close = tok_;
    expect(")");
    if (segments.size() != def->operands.size())
      fail(close, def->name + ": expected " + std::to_string(def->operands.size()) + " operand(s), got " +
                      std::to_string(segments.size()));
    AttributeMap attrs;
    if (is("{")) {
      take();
      while (!is("}")) {
        if (!attrs.empty()) expect(",");
        // An attribute may be named like a float keyword (nan_to_num's `nan`).
        const bool word = tok_.kind == Tok::Ident ||
                          (tok_.kind == Tok::Float && std::isalpha(static_cast<unsigned char>(tok_.text[0])));
        if (!word) Lexer::error(tok_, "an attribute name");
        const Token key = take();
        expect("=");
        if (attrs.count(key.text)) fail(key, "attribute '" + key.text + "' given twice");
        attrs[key.text] = attribute();
      }
      expect("}");
    }
    std::vector<std::unique_ptr<Region>> regions;
    while (is_ident("region")) {
      take();
      regions.push_back(std::make_unique<Region>());
      region(*regions.back());
    }
    std::vector<TensorType> types;
    if (is(":")) {
      take();
      types.push_back(type());
      while (is(",")) {
        take();
        types.push_back(type());
      }
    }
    if (types.size() != result_names.size())
      fail(name_tok, def->name + ": " + std::to_string(result_names.size()) + " result name(s) but " +
                         std::to_string(types.size()) + " result type(s)");
    Operation* op = b.push_back(Operation::create(def->name, operands, segments, std::move(attrs), types,
                                                  std::move(regions)));
    for (size_t r = 0; r < result_names.size(); ++r) define(result_names[r], op->result(r));
  }

  void region(Region& r) {
    expect("{");
    scopes_.emplace_back();  // a region's values are not visible after it
    bool first = true;
    while (!is("}")) {
      Block* b = r.add_block();
      scopes_.emplace_back();
      if (is("^")) {
        take();
        expect("(");
        while (!is(")")) {
          if (b->num_arguments()) expect(",");
          if (tok_.kind != Tok::ValueName) Lexer::error(tok_, "a block argument %name");
          Token n = take();
          expect(":");
          define(n, b->add_argument(type()));
        }
        expect(")");
        expect(":");
      } else if (!first) {
        Lexer::error(tok_, "'^' to open the next block");
      }
      first = false;
      block_body(*b);
      scopes_.pop_back();
    }
    scopes_.pop_back();
    expect("}");
  }

  Lexer lex_;
  Token tok_;
  std::vector<Scope> scopes_;
};

}  // namespace

std::unique_ptr<Program> parse(const std::string& text) { return Parser(text).program(); }

Attribute parse_attribute(const std::string& text) { return Parser(text).lone_attribute(); }

}  // namespace oar::ir
