/* lang.h: the front end of patc (the one header of lang/).
 *
 * Everything a later stage needs from the front end lives here: the arena every
 * compilation allocates from, the growable string buffer, source spans, the single
 * diagnostic function, die(), the AST and the parser entry points.
 */
#ifndef PATC_LANG_H
#define PATC_LANG_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PATC_VERSION "0.1.0"

/* ---------------------------------------------------------------- internal bugs */

/* die() is for bugs in patc itself, never for errors in the user's program. */
_Noreturn void die_at(const char *file, int line, const char *fmt, ...);
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
#define unreachable() die_at(__FILE__, __LINE__, "unreachable")

/* ---------------------------------------------------------------- allocation */

/* Every heap allocation of the library goes through these: they return NULL when
 * memory runs out (never abort), and the out-of-memory tests make them fail on purpose
 * (lang_fault_arm). */
void *lang_malloc(size_t n);
void *lang_calloc(size_t n, size_t size);
void *lang_realloc(void *p, size_t n);
char *lang_strdup(const char *s);
/* Test hook: the n-th allocation from now (arena allocations included) fails, and with
 * `sticky` every one after it too; n = 0 disarms. Per thread. lang_fault_env() arms it
 * from PATC_FAULT_ALLOC ("N" or "N+"), so that the out-of-memory tests reach the
 * command-line tool. lang_fault_count() is the number of allocations since arming. */
void lang_fault_arm(long n, bool sticky);
void lang_fault_env(void);
long lang_fault_count(void);
bool lang_fault_fired(void);

/* ---------------------------------------------------------------- arena */

/* One arena per compilation: every AST node, type, nat and IR node of a compilation
 * is allocated here and freed in one call. When memory runs out an arena longjmps to
 * its catch (arena_catch: the driver points it at its Diag's handler while it
 * compiles, the interpreter at its own) after marking itself failed; an arena with no
 * catch is a bug of patc's (die). arena_new returns NULL when memory runs out. */
typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t size); /* zeroed, 16-byte aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Where a failed allocation jumps (NULL: nowhere); returns the previous catch. */
jmp_buf *arena_catch(Arena *a, jmp_buf *jb);
/* Whether an allocation of this arena failed (what the catch asks after the jump). */
bool arena_failed(const Arena *a);
/* Mark the arena failed and jump to its catch, as a failed allocation does. */
_Noreturn void arena_fail(Arena *a);
/* A counter per arena: unique small ids for variables and binders of one compilation. */
int arena_next_id(Arena *a);
/* Scratch memory for work whose results are thrown away (nat proofs: only a bool comes
 * out): arena_scratch_begin(a) gives a's scratch arena (a itself when a is scratch, or
 * when none can be made), arena_scratch_end(a, s) ends the use, and the outermost end
 * empties it. Nothing made in it may be kept past the end. A failure there is a's
 * (arena_fail passes it on); ids come from a's counter. */
Arena *arena_scratch_begin(Arena *a);
void arena_scratch_end(Arena *a, Arena *s);
bool arena_is_scratch(const Arena *a);
#define ANEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ANEWN(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* ---------------------------------------------------------------- string buffer */

/* A growable, always NUL-terminated string. On the heap by default (printers produce
 * output that outlives a compilation): when memory runs out the buffer keeps what it
 * has, sets `oom` and ignores later appends, and sb_take returns NULL, for the caller
 * to report. With `a` set it grows in that arena instead (a buffer made inside a
 * compilation: a failure then jumps to the arena's catch, and nothing leaks). */
typedef struct StrBuf {
    char *s;
    size_t len, cap;
    Arena *a;
    bool oom;
} StrBuf;
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
/* Put s in at byte `at` (<= len), moving what follows. */
void sb_insert(StrBuf *b, size_t at, const char *s);
/* The text so far, "" when nothing was appended (never NULL). */
const char *sb_str(const StrBuf *b);
/* The string, the caller's to free when the buffer is on the heap (NULL when memory
 * ran out: `oom`); b is reset. */
char *sb_take(StrBuf *b);
void sb_free(StrBuf *b);
/* What a failed allocation does to b: arena buffers jump, heap ones set oom. */
void sb_fail(StrBuf *b);

/* ---------------------------------------------------------------- name tables */

/* A hash table from NUL-terminated names to pointers, allocated from an arena (keys are
 * not copied: they must live as long as the table). Lookup and insertion are O(1) on
 * average, so per-declaration work stays linear in the number of declarations. */
typedef struct NameMap NameMap;
NameMap *namemap_new(Arena *a);
void *namemap_get(const NameMap *m, const char *key); /* NULL when absent */
/* Add key -> value (value not NULL) unless key is present; returns the value already
 * there, or NULL when it was added. */
void *namemap_put(NameMap *m, const char *key, void *value);

/* ---------------------------------------------------------------- sources and spans */

typedef struct SrcFile {
    const char *path;  /* as the user named it (for messages) */
    const char *text;  /* whole contents, NUL-terminated */
    size_t len;
} SrcFile;

/* A position in a source file: 1-based line and column of the first character. */
typedef struct UseSite UseSite;
typedef struct Span {
    const SrcFile *file; /* NULL for synthesised nodes */
    int line, col;
    const UseSite *via;  /* for code inlined from a definition: the uses it was inlined through */
} Span;

/* A use of a definition that was inlined (expand.c): the definition's name, where it
 * was used, and the use the using code itself was inlined through. A diagnostic at a
 * span with `via` adds "note: in the use of 'f' here" for each, innermost first. */
struct UseSite {
    const char *name;
    Span sp;
};

/* ---------------------------------------------------------------- diagnostics */

/* Diagnostics of one compilation. Every user error goes through diag_error(), which
 * prints "file:line:col: error: message", the source line and a caret to the sink.
 * The first error ends the compilation: diag_error() longjmps to `on_error`, which
 * the driver sets with setjmp before running the front end and the passes. */
typedef struct Diag {
    FILE *sink;       /* where messages go; may be NULL when `buf` is used */
    StrBuf *buf;      /* if non-NULL, messages are appended here as well */
    int nerrors;
    jmp_buf on_error;
    bool jump_armed;  /* diag_error longjmps only when the driver armed it */
    Span at;          /* where the last error was reported */
    bool oom;         /* a message was cut short: memory ran out while it was written */
    /* What the check that reported the last error could not show about the nat
     * parameters (compiler/hint.c), set just before the error; NULL for other errors.
     * The driver reads it to say which -D would settle the check. */
    const struct HintFact *fact;
} Diag;

void diag_init(Diag *d, FILE *sink, StrBuf *buf);
/* Report an error in the user's program at `sp` and abandon the compilation. */
_Noreturn void diag_error(Diag *d, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Report an error, then a note at a second place, and abandon the compilation. */
_Noreturn void diag_error2(Diag *d, Span sp, Span note_sp, const char *note, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A note or warning that does not stop the compilation. */
void diag_note(Diag *d, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An error with no source position (missing file, bad -D): "patc: error: ...". */
_Noreturn void diag_error_nopos(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------- scalar types and ops */

/* Scalar types: X(enum, spelling, C type, size in bytes, is_float, is_signed) */
#define SCALAR_TYPES(X)                          \
    X(SK_F32, "f32", "float", 4, 1, 1)           \
    X(SK_F64, "f64", "double", 8, 1, 1)          \
    X(SK_I32, "i32", "int", 4, 0, 1)             \
    X(SK_U32, "u32", "unsigned int", 4, 0, 0)    \
    X(SK_I64, "i64", "long long", 8, 0, 1)       \
    X(SK_U64, "u64", "unsigned long long", 8, 0, 0) \
    X(SK_BOOL, "bool", "bool", 1, 0, 0)

typedef enum {
#define X(e, s, c, sz, f, sg) e,
    SCALAR_TYPES(X)
#undef X
    SK_COUNT
} ScalarKind;

typedef struct ScalarInfo {
    const char *name, *ctype;
    int size;
    bool is_float, is_signed;
} ScalarInfo;
extern const ScalarInfo scalar_info[SK_COUNT];

/* Binary operators: X(enum, spelling); the spelling is also the C operator */
#define BIN_OPS(X)          \
    X(OP_ADD, "+")          \
    X(OP_SUB, "-")          \
    X(OP_MUL, "*")          \
    X(OP_DIV, "/")          \
    X(OP_MOD, "%")          \
    X(OP_BAND, "&")         \
    X(OP_BOR, "|")          \
    X(OP_BXOR, "^")         \
    X(OP_SHL, "<<")         \
    X(OP_SHR, ">>")         \
    X(OP_LT, "<")           \
    X(OP_GT, ">")           \
    X(OP_LE, "<=")          \
    X(OP_GE, ">=")          \
    X(OP_EQ, "==")          \
    X(OP_NE, "!=")          \
    X(OP_AND, "&&")         \
    X(OP_OR, "||")

typedef enum {
#define X(e, s) e,
    BIN_OPS(X)
#undef X
    OP_COUNT
} BinOp;
extern const char *const binop_spelling[OP_COUNT];

/* OP_ADD..OP_SHR keep their operands' type (arithmetic; OP_BAND..OP_SHR on integers
 * only); OP_LT..OP_NE compare; OP_AND, OP_OR take bools. OP_SHL and OP_SHR have no
 * operator syntax (`>>` is composition): they are the functions shl and shr. */
#define binop_keeps_type(op) ((op) <= OP_SHR)
#define binop_is_bitwise(op) ((op) >= OP_BAND && (op) <= OP_SHR)

/* Unary operators: X(enum, spelling), as binary ones */
#define UN_OPS(X)           \
    X(UOP_NEG, "-")         \
    X(UOP_NOT, "!")         \
    X(UOP_BNOT, "~")

typedef enum {
#define X(e, s) e,
    UN_OPS(X)
#undef X
    UOP_COUNT
} UnOp;
extern const char *const unop_spelling[UOP_COUNT];

/* ---------------------------------------------------------------- AST */

/* AST kinds. Each comment names the union member that is valid for the kind. */
typedef enum {
    A_VAR,     /* var: a name (a binder, a def, a primitive, or a nat name) */
    A_INT,     /* lit_int: integer literal; sk is SK_I32 unless suffixed ('u' -> SK_U32) */
    A_FLOAT,   /* lit_float: float literal; SK_F32 with an 'f' suffix, else SK_F64 */
    A_BOOL,    /* lit_bool: true / false */
    A_DIM,     /* dim: a dimension literal 'x' 'y' 'z' (0, 1, 2) */
    A_APP,     /* app: one curried application fn(arg) */
    A_LAM,     /* lam: fun(x => body), optionally with the parameter's type */
    A_NLAM,    /* lam: nFun(n => body); ptype is NULL */
    A_LET,     /* let: produced by expand for `e |> fun(x => b)` when e is data */
    A_BIN,     /* bin: a binary operator */
    A_UN,      /* un: a unary operator */
} AstKind;

typedef struct TypeExpr TypeExpr;
typedef struct Ast Ast;

struct Ast {
    AstKind kind;
    Span sp;
    union {
        struct { const char *name; } var;
        struct { uint64_t v; ScalarKind sk; bool suffixed; } lit_int;
        struct { double v; ScalarKind sk; } lit_float;
        struct { bool v; } lit_bool;
        struct { int d; } dim;
        struct { Ast *fn, *arg; } app;
        struct { const char *param; TypeExpr *ptype; Ast *body; } lam;
        /* uses: for the parameter of a lambda written in a definition (expand.c's
         * let-binding of a computed argument), the uses of definitions it was inlined
         * through, so that an error about the binding can name the user's call */
        struct { const char *name; Ast *value, *body; const UseSite *uses; } let;
        struct { BinOp op; Ast *l, *r; } bin;
        struct { UnOp op; Ast *e; } un;
    };
};

/* Type expressions as written in the source (fun(T)(x => ...)). */
typedef enum {
    TE_SCALAR, /* sk */
    TE_ARRAY,  /* arr: size is an Ast nat expression */
    TE_PAIR,   /* pair */
    TE_IDX,    /* idx: idx[N] */
} TypeExprKind;

struct TypeExpr {
    TypeExprKind kind;
    Span sp;
    union {
        ScalarKind sk;
        struct { Ast *size; TypeExpr *elem; } arr;
        struct { TypeExpr *a, *b; } pair;
        struct { Ast *size; } idx;
    };
};

/* Top-level declarations. */
typedef enum { D_DEF, D_KERNEL } DeclKind;

typedef struct Decl {
    DeclKind kind;
    Span sp;
    const char *name;
    const char **params; /* def f(a, b) = e: parameter names; NULL for none */
    Span *param_spans;
    int nparams;
    Ast *body;
    struct Decl *next;
} Decl;

typedef struct Program {
    Decl *decls;   /* in source order, imports spliced in where they appear */
    Decl **tail;
    NameMap *by_name; /* each declared name -> its Decl; set by the driver, or NULL */
} Program;

/* AST constructors (one call per grammar action). */
Ast *ast_new(Arena *a, AstKind k, Span sp);
Ast *ast_var(Arena *a, Span sp, const char *name);
Ast *ast_app(Arena *a, Span sp, Ast *fn, Ast *arg);
Ast *ast_lam(Arena *a, Span sp, const char *param, TypeExpr *ptype, Ast *body);
Ast *ast_nlam(Arena *a, Span sp, const char *param, Ast *body);
Ast *ast_bin(Arena *a, Span sp, BinOp op, Ast *l, Ast *r);
Ast *ast_un(Arena *a, Span sp, UnOp op, Ast *e);
/* Print an AST in source syntax (for -d dumps and tests). */
void ast_print(StrBuf *b, const Ast *e);
/* Type-expression constructors (one call per grammar action) and printer. */
TypeExpr *ast_te_scalar(Arena *a, Span sp, ScalarKind sk);
TypeExpr *ast_te_array(Arena *a, Span sp, Ast *size, TypeExpr *elem);
TypeExpr *ast_te_pair(Arena *a, Span sp, TypeExpr *x, TypeExpr *y);
TypeExpr *ast_te_idx(Arena *a, Span sp, Ast *size);
void ast_print_type(StrBuf *b, const TypeExpr *t);
/* Print a program's declarations, one per line ("def f(a) = ...", "kernel k = ..."). */
void ast_print_program(StrBuf *b, const Program *p);

/* ---------------------------------------------------------------- parsing */

/* A source file held in memory, not on disk: one of patc's own patterns built into
 * libpatrt (runtime/rt_patterns.c). An import finds it by its file name alone. */
typedef struct LangBuiltin {
    const char *name; /* "scan.rise" */
    const char *text; /* NUL-terminated, never freed; the SrcFile of the import points
                         to it, which is how an import inside it is known to be built in */
    size_t len;
} LangBuiltin;

/* Where a built-in file seems to live, in diagnostics: "<patc>/patterns/scan.rise:55:19".
 * Not a directory that can exist by accident (it is never looked up on disk). */
#define LANG_BUILTIN_DIR "<patc>/patterns"

/* Where `import "p"` looks, in order (parse.c, on_import): the importing file's
 * directory, include_dirs, pattern_dir, builtins. */
typedef struct LangOptions {
    const char **include_dirs; /* -I directories, searched after the importing file's directory */
    int ninclude_dirs;
    const char *pattern_dir;   /* the installed patterns (share/patc/patterns), searched after
                                  the -I directories; NULL: none */
    const LangBuiltin *builtins; /* searched last; NULL: none */
    int nbuiltins;
} LangOptions;

/* Bytes of the calling thread's stack left below the caller's frame (SIZE_MAX when
 * the thread's bounds are unknown). A recursive pass over the user's program reports
 * "nested too deeply" when less than LANG_STACK_RESERVE is left, instead of running
 * off the stack its host gave it (stack.c). */
size_t lang_stack_left(void);
#define LANG_STACK_RESERVE ((size_t)512 << 10)
/* The same test for a pass that recurses once per node of a large run (the
 * interpreter): the frame address below which less than LANG_STACK_RESERVE is left,
 * asked once per run and compared with __builtin_frame_address(0); NULL when the
 * thread's bounds are unknown. lang_stack_left reads thread-local state on every call,
 * which cost the interpreter about 7% of its time. */
const char *lang_stack_floor(void);

/* Deepest chain of imports accepted (a imports b imports c ...: each level is a
 * recursive parse, so the chain must not be able to exhaust the C stack). */
#define LANG_MAX_IMPORT_DEPTH 64

/* Parse one source text (already in memory) into `prog`, following imports.
 * Errors go through `d` (and so longjmp). */
/* The same with the text already in the arena when in_arena (not copied again). */
void lang_parse_text(Arena *a, Diag *d, const LangOptions *opt, Program *prog, const char *path, const char *text,
                     size_t len, bool in_arena);
void lang_parse_string(Arena *a, Diag *d, const LangOptions *opt, Program *prog,
                       const char *path, const char *text, size_t len);
/* Read and parse a file; a missing file is reported through `d`. */
void lang_parse_file(Arena *a, Diag *d, const LangOptions *opt, Program *prog, const char *path);

/* Read a whole source file; returns NULL (and sets errno) on failure. Caller frees.
 * Only a regular file is read (lang_open_regular), and one larger than
 * LANG_MAX_FILE_SIZE is refused (EFBIG). */
char *lang_read_file(const char *path, size_t *len);
/* The same, copied into the arena (memory running out there is the arena's failure). */
char *lang_read_file_in(Arena *a, const char *path, size_t *len);
#define LANG_MAX_FILE_SIZE ((long long)64 << 20)
#define LANG_MAX_FILE_SIZE_TEXT "64 MiB"
/* errno values for a file that is not a regular one (a directory is EISDIR), above the
 * system's own (Linux's stop below 200), so that lang_read_error can name the kind. */
enum { LANG_EFIFO = 4096, LANG_ECHR, LANG_EBLK, LANG_ESOCK, LANG_ENOTREG };
/* The errno for a file of mode `mode` (st_mode) that is not a regular file: EISDIR, or
 * the LANG_E* value naming its kind. */
int lang_notreg_errno(unsigned mode);
/* Open `path` for reading if it is a regular file, without blocking (see lang_read_file);
 * -1 with errno otherwise (EISDIR, LANG_EFIFO, ... for what is there but not regular).
 * *size: its size in bytes. */
int lang_open_regular(const char *path, long long *size);
/* Why lang_read_file or lang_open_regular failed, for "cannot read 'path': ..."
 * (strerror, or our words for EISDIR, the LANG_E* values and EFBIG). */
const char *lang_read_error(int err);

#endif
