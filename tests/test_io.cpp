// Readers and writers: every sample in matrices/, every Matrix Market header variant, the
// headerless / Rodinia / edge-list formats, bad inputs (status, file and line in the message),
// the atomic Matrix Market writer, what write_file_atomically does with symlinks, FIFOs and
// devices, and a large file parsed in parallel chunks.
#include <bzlib.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <lzma.h>
#include <omp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gbcuda/io.hpp"
#include "gbcuda/matrix.hpp"
#include "io/input.hpp"

namespace {

namespace fs = std::filesystem;
using gbcuda::CooData;
using gbcuda::Error;
using gbcuda::FileFormat;
using gbcuda::Index;
using gbcuda::ReadOptions;
using gbcuda::Status;

// A fresh directory per test, removed afterwards.
class IoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "gbcuda_test_io_XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  static CooData read(const std::string& path, FileFormat format = FileFormat::Auto) {
    ReadOptions o;
    o.format = format;
    o.progress = ReadOptions::Progress::Never;
    return gbcuda::read_coo(path, o);
  }
  // Reading `path` fails with `status`, and the message contains every piece of `parts`.
  static void expect_error(const std::string& path, FileFormat format, Status status,
                           const std::vector<std::string>& parts) {
    try {
      read(path, format);
      ADD_FAILURE() << "reading " << path << " did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), status) << e.what();
      for (const auto& p : parts)
        EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "'" << p << "' not in: " << e.what();
    }
  }
  // A ParseError naming "path:line:" and containing `what`.
  static void expect_parse_error(const std::string& path, Index line, const std::string& what,
                                 FileFormat format = FileFormat::Auto) {
    expect_error(path, format, Status::ParseError, {path + ":" + std::to_string(line) + ":", what});
  }
  std::vector<std::string> dir_entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }
  fs::path dir_;
};

// "e3.txt" and the like. (Appending, not "e" + std::to_string(k): GCC 12 warns about that with
// -Wrestrict, a false positive.)
std::string numbered(const char* prefix, int k) {
  std::string name = prefix;
  name += std::to_string(k);
  name += ".txt";
  return name;
}

// (row, col, value) triplets of a CooData, in file order.
struct Triplet {
  Index i, j;
  double v;
  bool operator==(const Triplet&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Triplet& t) {
  return os << "(" << t.i << "," << t.j << "," << t.v << ")";
}

std::vector<Triplet> triplets(const CooData& c) {
  std::vector<Triplet> t;
  for (std::size_t k = 0; k < c.rows.size(); ++k)
    t.push_back({c.rows[k], c.cols[k], c.values.empty() ? 1.0 : c.values[k]});
  return t;
}

// ---- the samples in matrices/ --------------------------------------------------------------

struct Sample {
  const char* file;
  FileFormat format;
  Index n;
  Index stored;  // entries as written
  Index arcs;    // after symmetric expansion and merging (nvals of the matrix)
  bool pattern;
};

const Sample kSamples[] = {
    {"karate.mtx", FileFormat::MatrixMarket, 34, 78, 156, true},
    {"dolphins.mtx", FileFormat::MatrixMarket, 62, 159, 318, true},
    {"netscience.mtx", FileFormat::MatrixMarket, 1589, 2742, 5484, false},
    {"bcsstk13.mtx", FileFormat::MatrixMarket, 2003, 42943, 83883, false},
    {"jagmesh7.mtx", FileFormat::MatrixMarket, 1138, 4294, 7450, true},
    {"cryg2500.mtx", FileFormat::MatrixMarket, 2500, 12349, 12349, false},
    {"west0067.mtx", FileFormat::MatrixMarket, 67, 294, 294, false},
    {"delaunay_n10.mtx", FileFormat::MatrixMarket, 1024, 3056, 6112, true},
    {"cavity02_headerless.txt", FileFormat::Headerless, 317, 7327, 7327, false},
    {"reg_d3_n100000.rodinia.txt", FileFormat::Rodinia, 100000, 300000, 300000, true},
    {"graph4096.rodinia.txt", FileFormat::Rodinia, 4096, 24576, 24576, true},
};

std::string sample_path(const char* file) { return (fs::path(GBCUDA_MATRICES_DIR) / file).string(); }

TEST(IoSamples, EveryFileIsListed) {
  std::set<std::string> listed;
  for (const auto& s : kSamples) listed.insert(s.file);
  for (const auto& e : fs::directory_iterator(GBCUDA_MATRICES_DIR)) {
    const std::string name = e.path().filename().string();
    if (name == "README.md") continue;
    EXPECT_TRUE(listed.count(name)) << name << " is in matrices/ but not in this test";
  }
  for (const auto& s : kSamples) EXPECT_TRUE(fs::exists(sample_path(s.file))) << s.file;
}

TEST(IoSamples, ReadWithDetection) {
  for (const auto& s : kSamples) {
    SCOPED_TRACE(s.file);
    const std::string path = sample_path(s.file);
    EXPECT_EQ(gbcuda::detect_format(path), s.format);
    Index source = -1;
    ReadOptions o;
    o.rodinia_source = &source;
    const CooData c = gbcuda::read_coo(path, o);
    EXPECT_EQ(c.format, s.format);
    EXPECT_EQ(c.nrows, s.n);
    EXPECT_EQ(c.ncols, s.n);
    EXPECT_EQ(c.stored_entries, s.stored);
    EXPECT_EQ(Index(c.rows.size()), s.arcs);  // the samples hold no duplicates
    EXPECT_EQ(c.cols.size(), c.rows.size());
    EXPECT_EQ(c.values.empty(), s.pattern);
    if (!s.pattern) {
      EXPECT_EQ(c.values.size(), c.rows.size());
    }
    if (s.format == FileFormat::Rodinia) {
      EXPECT_EQ(source, 0);
    }
    for (std::size_t k = 0; k < c.rows.size(); ++k) {
      ASSERT_TRUE(c.rows[k] >= 0 && c.rows[k] < s.n && c.cols[k] >= 0 && c.cols[k] < s.n) << k;
    }
    const auto A = gbcuda::matrix_from_coo<bool>(c);
    EXPECT_EQ(A.nrows(), s.n);
    EXPECT_EQ(A.nvals(), s.arcs);
    EXPECT_TRUE(A.is_iso());
  }
}

TEST(IoSamples, ExplicitZerosAreEdges) {
  // cavity02 stores 1,404 zeros; a bool matrix keeps every stored entry.
  const CooData c = gbcuda::read_coo(sample_path("cavity02_headerless.txt"));
  Index zeros = 0;
  for (double v : c.values) zeros += v == 0.0;
  EXPECT_EQ(zeros, 1404);
  EXPECT_EQ(gbcuda::read_matrix<bool>(sample_path("cavity02_headerless.txt")).nvals(), 7327);
  EXPECT_EQ(gbcuda::read_matrix<double>(sample_path("cavity02_headerless.txt")).nvals(), 7327);
}

TEST(IoSamples, KarateHeaderAndFirstEntries) {
  const CooData c = gbcuda::read_coo(sample_path("karate.mtx"));
  EXPECT_EQ(c.header, "coordinate pattern symmetric");
  // The first stored entry is "2 1": arcs 1->0 and 0->1.
  ASSERT_GE(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0], 1);
  EXPECT_EQ(c.cols[0], 0);
  EXPECT_EQ(c.rows[1], 0);
  EXPECT_EQ(c.cols[1], 1);
  EXPECT_TRUE(gbcuda::read_matrix<bool>(sample_path("karate.mtx")).is_symmetric_structure());
  EXPECT_FALSE(gbcuda::read_matrix<bool>(sample_path("west0067.mtx")).is_symmetric_structure());
}

// ---- Matrix Market header variants ---------------------------------------------------------

TEST_F(IoTest, CoordinateGeneralFields) {
  auto c = read(write("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 4 2\n1 4\n3 1\n"));
  EXPECT_EQ(c.format, FileFormat::MatrixMarket);
  EXPECT_EQ(c.header, "coordinate pattern general");
  EXPECT_EQ(c.nrows, 3);
  EXPECT_EQ(c.ncols, 4);
  EXPECT_EQ(c.stored_entries, 2);
  EXPECT_TRUE(c.values.empty());
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 3, 1}, {2, 0, 1}}));

  c = read(write("r.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 -1.5e2\n2 2 0\n"));
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 1, -150}, {1, 1, 0}}));

  c = read(write("i.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 7\n2 1 -3\n"));
  EXPECT_EQ(c.header, "coordinate integer general");
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 1, 7}, {1, 0, -3}}));

  c = read(write("c.mtx", "%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 2 3.5 4\n2 1 -1 -2\n"));
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 1, 3.5}, {1, 0, -1}}));  // real part kept
}

TEST_F(IoTest, CoordinateSymmetricKinds) {
  // Off-diagonal entries are mirrored; the diagonal appears once.
  auto c = read(write("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 5\n3 3 1.5\n"));
  EXPECT_EQ(c.stored_entries, 2);
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 0, 5}, {0, 1, 5}, {2, 2, 1.5}}));

  c = read(write("sp.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n3 1\n2 2\n"));
  EXPECT_TRUE(c.values.empty());
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{2, 0, 1}, {0, 2, 1}, {1, 1, 1}}));

  c = read(write("si.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n2 1 4\n"));
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 0, 4}, {0, 1, 4}}));

  c = read(write("k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 2 -1\n"));
  EXPECT_EQ(c.header, "coordinate real skew-symmetric");
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 0, 5}, {0, 1, -5}, {2, 1, -1}, {1, 2, 1}}));

  c = read(write("ki.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n"));
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 0, 3}, {0, 1, -3}}));

  c = read(write("cs.mtx", "%%MatrixMarket matrix coordinate complex symmetric\n2 2 1\n2 1 3 4\n"));
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 0, 3}, {0, 1, 3}}));

  c = read(write("ck.mtx", "%%MatrixMarket matrix coordinate complex skew-symmetric\n2 2 1\n2 1 3 4\n"));
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 0, 3}, {0, 1, -3}}));

  // Hermitian: the mirror is the conjugate; its real part is the same.
  c = read(write("h.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n2 1 3 4\n1 1 2 0\n"));
  EXPECT_EQ(c.header, "coordinate complex hermitian");
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 0, 3}, {0, 1, 3}, {0, 0, 2}}));
}

TEST_F(IoTest, ArrayFormats) {
  // Column-major; zeros are stored entries too.
  auto c = read(write("a.mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n2\n0\n4\n5\n6\n"));
  EXPECT_EQ(c.header, "array real general");
  EXPECT_EQ(c.stored_entries, 6);
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 0, 1}, {1, 0, 2}, {0, 1, 0}, {1, 1, 4}, {0, 2, 5}, {1, 2, 6}}));

  // Symmetric: the lower triangle column by column.
  c = read(write("as.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n"));
  EXPECT_EQ(c.stored_entries, 6);
  EXPECT_EQ(triplets(c),
            (std::vector<Triplet>{
                {0, 0, 1}, {1, 0, 2}, {0, 1, 2}, {2, 0, 3}, {0, 2, 3}, {1, 1, 4}, {2, 1, 5}, {1, 2, 5}, {2, 2, 6}}));
  EXPECT_EQ(gbcuda::matrix_from_coo<bool>(c).nvals(), 9);

  // Skew-symmetric: the strictly lower triangle.
  c = read(write("ak.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n"));
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 0, 1}, {0, 1, -1}, {2, 0, 2}, {0, 2, -2}, {2, 1, 3}, {1, 2, -3}}));

  c = read(write("ai.mtx", "%%MatrixMarket matrix array integer general\n1 2\n7\n-8\n"));
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 0, 7}, {0, 1, -8}}));

  c = read(write("ac.mtx", "%%MatrixMarket matrix array complex general\n2 1\n1 9\n2 9\n"));
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 0, 1}, {1, 0, 2}}));
}

TEST_F(IoTest, CommentsBlankLinesCrlfAndCase) {
  const std::string text =
      "%%MATRIXMARKET Matrix COORDINATE Real SYMMETRIC  \r\n"
      "% a comment\r\n"
      "\r\n"
      "%another comment with trailing blanks   \r\n"
      "  3 3 2  \r\n"
      "\r\n"
      "2 1 1.0\t\r\n"
      "% a comment between entries\r\n"
      "3 3 2.0\r\n"
      "\r\n";
  const auto c = read(write("crlf.mtx", text));
  EXPECT_EQ(c.format, FileFormat::MatrixMarket);
  EXPECT_EQ(c.header, "coordinate real symmetric");
  EXPECT_EQ(c.stored_entries, 2);
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 0, 1}, {0, 1, 1}, {2, 2, 2}}));
  // No final newline.
  const auto d = read(write("nonl.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2"));
  EXPECT_EQ(triplets(d), (std::vector<Triplet>{{0, 1, 1}}));
}

TEST_F(IoTest, EmptyGraphIsAllowed) {
  const auto c = read(write("e.mtx", "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n"));
  EXPECT_EQ(c.nrows, 0);
  EXPECT_EQ(c.stored_entries, 0);
  EXPECT_EQ(gbcuda::matrix_from_coo<bool>(c).nvals(), 0);
  const auto r = read(write("e.rodinia.txt", "0\n0\n0\n"));
  EXPECT_EQ(r.nrows, 0);
  const auto l = read(write("empty_edges.txt", "# nothing\n"), FileFormat::EdgeList);
  EXPECT_EQ(l.nrows, 0);
}

TEST_F(IoTest, ReadMatrixTypes) {
  const std::string p = write("t.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 2.5\n1 2 1\n2 1 0\n");
  const auto D = gbcuda::read_matrix<double>(p);  // duplicates summed
  EXPECT_EQ(D.nvals(), 2);
  EXPECT_EQ(D.csr().values.to_vector(), (std::vector<double>{3.5, 0}));
  const auto B = gbcuda::read_matrix<bool>(p);  // structure only, the zero is an edge
  EXPECT_EQ(B.nvals(), 2);
  EXPECT_TRUE(B.is_iso());
  const auto I = gbcuda::read_matrix<std::int32_t>(
      write("t2.mtx", "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -4\n"));
  EXPECT_EQ(I.csr().values.to_vector(), (std::vector<std::int32_t>{-4}));
  const auto P =
      gbcuda::read_matrix<float>(write("t3.mtx", "%%MatrixMarket matrix coordinate pattern general\n1 2 1\n1 2\n"));
  EXPECT_TRUE(P.is_iso());
  EXPECT_EQ(P.csr().iso_value, 1.0f);
}

// ---- Matrix Market banners slightly off: honoured with a warning, or refused -----------------

// Reads with warnings collected (not printed).
CooData read_warned(const std::string& path, std::vector<std::string>& warnings, FileFormat format = FileFormat::Auto) {
  ReadOptions o;
  o.format = format;
  o.progress = ReadOptions::Progress::Never;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  return gbcuda::read_coo(path, o);
}

TEST_F(IoTest, BannerSlightlyOffIsReadWithAWarning) {
  // A symmetric pattern graph: 3 stored entries, 6 arcs. Read as a headerless general file, it
  // would silently lose half its edges.
  const std::string body = "3 3 3\n2 1\n3 1\n3 2\n";
  const std::vector<Triplet> expected{{1, 0, 1}, {0, 1, 1}, {2, 0, 1}, {0, 2, 1}, {2, 1, 1}, {1, 2, 1}};
  struct Case {
    const char* name;
    std::string head;
    Index banner_line;
    const char* says;
  };
  const Case cases[] = {
      {"one%", "%MatrixMarket matrix coordinate pattern symmetric\n", 1, "it has one '%'"},
      {"three%", "%%%MatrixMarket matrix coordinate pattern symmetric\n", 1, "it has 3 '%'"},
      {"space", "%% MatrixMarket matrix coordinate pattern symmetric\n", 1, "blanks follow the '%'"},
      {"case", "%%matrixmarket MATRIX Coordinate PATTERN symmetric\n", 1, "'matrixmarket' is not spelt 'MatrixMarket'"},
      {"comment_first", "% from a public data set\n%%MatrixMarket matrix coordinate pattern symmetric\n", 2,
       "it is on line 2, after other lines"},
      {"blank_first", "\n\n%%MatrixMarket matrix coordinate pattern symmetric\n", 3, "it is on line 3"},
      {"all", "# generated\n  % MATRIXMARKET matrix coordinate pattern symmetric\n", 2,
       "it has one '%', blanks follow the '%', 'MATRIXMARKET' is not spelt 'MatrixMarket' and it is on line 2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = write(std::string(c.name) + ".txt", c.head + body);
    EXPECT_EQ(gbcuda::detect_format(path), FileFormat::MatrixMarket);
    std::vector<std::string> warnings;
    const CooData coo = read_warned(path, warnings);
    EXPECT_EQ(coo.format, FileFormat::MatrixMarket);
    EXPECT_EQ(coo.header, "coordinate pattern symmetric");
    EXPECT_EQ(triplets(coo), expected);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0].rfind(path + ":" + std::to_string(c.banner_line) + ": read '", 0), 0u) << warnings[0];
    EXPECT_NE(warnings[0].find(c.says), std::string::npos) << warnings[0];
    // Forced, too.
    warnings.clear();
    EXPECT_EQ(triplets(read_warned(path, warnings, FileFormat::MatrixMarket)), expected);
    EXPECT_EQ(warnings.size(), 1u);
  }
  // The exact banner: no warning. Comments after it are comments.
  std::vector<std::string> warnings;
  read_warned(write("exact.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n%MatrixMarket\n" + body),
              warnings);
  EXPECT_TRUE(warnings.empty());
  // A banner honoured leniently is checked like any other.
  expect_parse_error(write("badfield.txt", "%MatrixMarket matrix coordinate quaternion general\n" + body), 1,
                     "unknown Matrix Market field 'quaternion'");
}

TEST_F(IoTest, MisspeltBannerIsRefused) {
  const std::string body = "3 3 3\n2 1\n3 1\n3 2\n";
  struct Case {
    const char* name;
    std::string head;
    Index line;
  };
  const Case cases[] = {
      {"typo", "%%MatrixMarkt matrix coordinate pattern symmetric\n", 1},
      {"typo2", "%%MatrixMaket matrix coordinate pattern symmetric\n", 1},
      {"dash", "% Matrix-Market matrix coordinate pattern symmetric\n", 1},
      {"glued", "%%MatrixMarketmatrix coordinate pattern symmetric\n", 1},
      {"words", "% comment\n%% MM matrix coordinate pattern symmetric\n", 2},
      {"spaced", "%% Matrix Market format: coordinate real symmetric\n", 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = write(std::string(c.name) + ".txt", c.head + body);
    expect_error(path, FileFormat::Auto, Status::ParseError,
                 {path + ":" + std::to_string(c.line) + ":", "looks like a misspelt Matrix Market banner", "--format"});
    expect_parse_error(path, c.line, "looks like a misspelt Matrix Market banner", FileFormat::MatrixMarket);
    // Asked for as headerless: read, with the line named as a comment.
    std::vector<std::string> warnings;
    const CooData coo = read_warned(path, warnings, FileFormat::Headerless);
    EXPECT_EQ(coo.stored_entries, 3);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("as a comment although it looks like a Matrix Market banner"), std::string::npos)
        << warnings[0];
  }
  // Ordinary comments that mention a word or two are comments.
  for (const char* head :
       {"% real symmetric matrix from a survey\n", "% matrix market files are nice\n", "% Matrix: coordinate\n"}) {
    SCOPED_TRACE(head);
    std::vector<std::string> warnings;
    EXPECT_EQ(read_warned(write("ok.txt", head + body), warnings).format, FileFormat::Headerless);
    EXPECT_TRUE(warnings.empty());
  }
}

// ---- the other formats ---------------------------------------------------------------------

TEST_F(IoTest, Headerless) {
  auto path = write("h.txt", "% comment\n3 3 3\n1 1 0.0\n3 2 1.5e+00\n2 3 -2\n");
  EXPECT_EQ(gbcuda::detect_format(path), FileFormat::Headerless);
  auto c = read(path);
  EXPECT_EQ(c.format, FileFormat::Headerless);
  EXPECT_EQ(c.nrows, 3);
  EXPECT_EQ(c.stored_entries, 3);
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 0, 0}, {2, 1, 1.5}, {1, 2, -2}}));

  c = read(write("hp.txt", "2 4 2\n1 4\n2 1\n"));
  EXPECT_EQ(c.format, FileFormat::Headerless);
  EXPECT_EQ(c.ncols, 4);
  EXPECT_TRUE(c.values.empty());
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 3, 1}, {1, 0, 1}}));

  // Forced, even when detection would say otherwise.
  c = read(write("hf.txt", "2 2 1\n2 2\n"), FileFormat::Headerless);
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{1, 1, 1}}));
}

const char* kRodinia =
    "4\n"
    "0 2\n"
    "2 1\n"
    "3 0\n"
    "3 1\n"
    "2\n"
    "4\n"
    "1 5\n"
    "2 7\n"
    "0 1\n"
    "1 3\n";

const char* kRodiniaBlank =
    "4\n"
    "\n"
    "0 2\n"
    "2 1\n"
    "3 0\n"
    "3 1\n"
    "\n"
    "2\n"
    "\n"
    "4\n"
    "1 5\n"
    "2 7\n"
    "0 1\n"
    "1 3\n"
    "\n";

TEST_F(IoTest, Rodinia) {
  const std::vector<Triplet> expected{{0, 1, 1}, {0, 2, 1}, {1, 0, 1}, {3, 1, 1}};
  for (const char* text : {kRodinia, kRodiniaBlank}) {
    // Detected by the name, and by the shape.
    for (const char* name : {"g.rodinia.txt", "g.txt"}) {
      SCOPED_TRACE(name);
      const std::string path = write(name, text);
      EXPECT_EQ(gbcuda::detect_format(path), FileFormat::Rodinia);
      Index source = -1;
      ReadOptions o;
      o.rodinia_source = &source;
      const auto c = gbcuda::read_coo(path, o);
      EXPECT_EQ(c.format, FileFormat::Rodinia);
      EXPECT_EQ(c.nrows, 4);
      EXPECT_EQ(c.ncols, 4);
      EXPECT_EQ(c.stored_entries, 4);
      EXPECT_TRUE(c.values.empty());  // costs ignored
      EXPECT_EQ(triplets(c), expected);
      EXPECT_EQ(source, 2);
    }
  }
  // No source pointer: still fine.
  EXPECT_EQ(read(write("n.rodinia.txt", kRodinia)).stored_entries, 4);
}

TEST_F(IoTest, EdgeLists) {
  const std::vector<Triplet> expected{{0, 1, 1}, {1, 2, 1}, {5, 0, 1}};
  const char* variants[] = {
      "0 1\n1 2\n5 0\n",
      "0\t1\n1\t2\n5\t0\n",
      "0,1\n1,2\n5,0\n",
      "# SNAP-style\n# Nodes: 6 Edges: 3\n0\t1\n\n1 2\n% other comment\n  5 ,  0  \r\n",
  };
  int k = 0;
  for (const char* text : variants) {
    SCOPED_TRACE(text);
    const std::string path = write(numbered("e", k++), text);
    EXPECT_EQ(gbcuda::detect_format(path), FileFormat::EdgeList);
    const auto c = read(path);
    EXPECT_EQ(c.format, FileFormat::EdgeList);
    EXPECT_EQ(c.nrows, 6);
    EXPECT_EQ(c.ncols, 6);
    EXPECT_EQ(c.stored_entries, 3);
    EXPECT_TRUE(c.values.empty());
    EXPECT_EQ(triplets(c), expected);
  }
  const auto w = read(write("w.csv", "0,1,2.5\n3,0,-1\n"));
  EXPECT_EQ(w.format, FileFormat::EdgeList);
  EXPECT_EQ(w.nrows, 4);
  EXPECT_EQ(triplets(w), (std::vector<Triplet>{{0, 1, 2.5}, {3, 0, -1}}));
  // A first line of three integers that is not a headerless size line (counts differ).
  const auto t = read(write("t.txt", "0 1 5\n1 2 5\n"));
  EXPECT_EQ(t.format, FileFormat::EdgeList);
  EXPECT_EQ(triplets(t), (std::vector<Triplet>{{0, 1, 5}, {1, 2, 5}}));
}

TEST_F(IoTest, EdgeListIndexBase) {
  ReadOptions o;
  o.progress = ReadOptions::Progress::Never;
  o.index_base = 1;
  const CooData c = gbcuda::read_coo(write("one.txt", "1 2\n2 3\n3 1\n"), o);
  EXPECT_EQ(c.format, FileFormat::EdgeList);
  EXPECT_EQ(c.header, "edgelist 1-based");
  EXPECT_EQ(c.nrows, 3);
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 1, 1}, {1, 2, 1}, {2, 0, 1}}));
  // With base 1, an id 0 is an error naming its line.
  const std::string zero = write("zero.txt", "1 2\n# c\n2 0\n");
  try {
    gbcuda::read_coo(zero, o);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::ParseError);
    EXPECT_NE(std::string(e.what()).find(zero + ":3: vertex id 0 in a 1-based edge list"), std::string::npos)
        << e.what();
  }
  // Base 0 (the default) on ids that never use 0: read, with a warning pointing at base 1.
  std::vector<std::string> warnings;
  const CooData d = read_warned(write("one0.txt", "1 2\n2 3\n"), warnings);
  EXPECT_EQ(d.nrows, 4);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("no edge uses vertex 0"), std::string::npos) << warnings[0];
  // Other formats have their own base: warned, not applied.
  std::vector<std::string> seen;
  o.on_warning = [&](const std::string& w) { seen.push_back(w); };
  EXPECT_EQ(gbcuda::read_coo(sample_path("karate.mtx"), o).nrows, 34);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen[0].find("index base 1 applies to edge lists only; this file is read as mtx"), std::string::npos)
      << seen[0];
  o.index_base = 2;
  try {
    gbcuda::read_coo(sample_path("karate.mtx"), o);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidValue);
  }
}

TEST_F(IoTest, EdgeListCsvHeaderAndNetworkx) {
  const std::vector<Triplet> pattern{{0, 1, 1}, {1, 2, 1}};
  const std::vector<Triplet> weighted{{0, 1, 2.5}, {1, 2, 1}};
  struct Case {
    const char* text;
    bool header;
    const std::vector<Triplet>& expected;
  };
  const Case cases[] = {
      {"source,target\n0,1\n1,2\n", true, pattern},
      {"# exported\nsrc dst weight\n0 1 2.5\n1 2 1\n", true, weighted},
      {"\"from\",\"to\"\n0,1\n1,2\n", true, pattern},
      {"0 1 {'weight': 2.5}\n1 2 {'weight': 1}\n", false, weighted},
      {"0 1 {}\n1 2 {}\n", false, pattern},
      {"0 1 {'color': 'red', 'weight': 2.5, 'tags': [1, 2]}\n1 2 {\"weight\": 1.0}\n", false, weighted},
  };
  int k = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string path = write(numbered("c", k++), c.text);
    EXPECT_EQ(gbcuda::detect_format(path), FileFormat::EdgeList);
    std::vector<std::string> warnings;
    const CooData coo = read_warned(path, warnings);
    EXPECT_EQ(coo.format, FileFormat::EdgeList);
    EXPECT_EQ(triplets(coo), c.expected);
    EXPECT_EQ(coo.values.empty(), &c.expected == &pattern);
    EXPECT_EQ(warnings.size(), c.header ? 1u : 0u);
    if (c.header) {
      EXPECT_NE(warnings[0].find("skipped the header line"), std::string::npos) << warnings[0];
    }
    warnings.clear();
    EXPECT_EQ(triplets(read_warned(path, warnings, FileFormat::EdgeList)), c.expected);
  }
  // A header line anywhere else, or not followed by numbers, is an error as before.
  expect_parse_error(write("h2.txt", "0,1\nsource,target\n"), 2, "'source' is not an integer", FileFormat::EdgeList);
  expect_parse_error(write("h3.txt", "source,target\nx,y\n"), 1, "'source' is not an integer", FileFormat::EdgeList);
  // Dictionaries must agree with the first line and be well formed.
  expect_parse_error(write("d1.txt", "0 1 {'weight': 2}\n1 2 {}\n"), 2, "no 'weight' attribute");
  expect_parse_error(write("d2.txt", "0 1 {}\n1 2 {'weight': 2}\n"), 2, "a 'weight' attribute, but the first");
  expect_parse_error(write("d3.txt", "0 1 {}\n1 2 {'weight'}\n"), 2, "malformed attribute dictionary");
  expect_parse_error(write("d4.txt", "0 1 {'weight': 1}\n1 2 {'weight': 'heavy'}\n"), 2,
                     "'weight' attribute ''heavy'' is not a number");
  expect_parse_error(write("d5.txt", "0 1 {}\n1 2\n"), 2, "expected 'src dst {attributes}'");
}

TEST_F(IoTest, Metis) {
  // Edges 1-2, 1-3, 1-4, 2-3 and an isolated vertex 5 (its empty line); comments, trailing blanks.
  const std::string text = "% a METIS graph\n5 4\n2 3 4\n1 3  \n% comment between\n1 2\n1\n\n";
  const std::vector<Triplet> expected{{0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {1, 0, 1},
                                      {1, 2, 1}, {2, 0, 1}, {2, 1, 1}, {3, 0, 1}};
  for (const char* name : {"g.graph", "g.metis", "g.txt"}) {
    SCOPED_TRACE(name);
    const std::string path = write(name, text);
    EXPECT_EQ(gbcuda::detect_format(path), FileFormat::Metis);
    const CooData c = read(path);
    EXPECT_EQ(c.format, FileFormat::Metis);
    EXPECT_EQ(c.header, "metis");
    EXPECT_EQ(c.nrows, 5);
    EXPECT_EQ(c.ncols, 5);
    EXPECT_EQ(c.stored_entries, 8);
    EXPECT_TRUE(c.values.empty());
    EXPECT_EQ(triplets(c), expected);
    EXPECT_EQ(triplets(read(path, FileFormat::Metis)), expected);
  }
  // fmt 1: edge weights kept; fmt 11 with ncon 2: vertex weights skipped; fmt 111: vertex size too.
  const std::vector<Triplet> weighted{{0, 1, 7}, {1, 0, 7}, {1, 2, 3}, {2, 1, 3}};
  for (const char* w : {"3 2 1\n2 7\n1 7 3 3\n2 3\n", "3 2 011 2\n5 6 2 7\n1 1 1 7 3 3\n0 0 2 3\n",
                        "3 2 111\n9 5 2 7\n9 1 1 7 3 3\n9 0 2 3\n", "3 2 001\n2 7\n1 7 3 3\n2 3\n"}) {
    SCOPED_TRACE(w);
    const CooData c = read(write("w.graph", w));
    EXPECT_EQ(c.header, "metis edge-weighted");
    EXPECT_EQ(triplets(c), weighted);
  }
  const CooData vw = read(write("vw.graph", "3 2 10\n4 2\n4 1 3\n4 2\n"));
  EXPECT_EQ(triplets(vw), (std::vector<Triplet>{{0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 1, 1}}));
  // 64-bit sums: an empty graph and a graph of isolated vertices.
  EXPECT_EQ(read(write("e.graph", "3 0\n\n\n\n")).nrows, 3);
  EXPECT_EQ(read(write("e0.graph", "0 0\n")).nrows, 0);
}

TEST_F(IoTest, MetisErrors) {
  expect_parse_error(write("a.graph", "3 2\n2\n1 3\n"), 3, "expected 3 vertex lines, found 2");
  expect_parse_error(write("b.graph", "3 2\n2\n1 3\n2\n1\n"), 5, "more vertex lines than the 3 vertices");
  expect_parse_error(write("c.graph", "3 2\n2\n1 4\n2\n"), 3, "neighbour 4 out of range (valid: 1..3)");
  expect_parse_error(write("d.graph", "3 2\n2\n0 3\n2\n"), 3, "neighbour 0 out of range");
  expect_parse_error(write("e.graph", "3 2\n2\n1 x\n2\n"), 3, "neighbour 'x' is not an integer");
  expect_parse_error(write("f.graph", "3 3\n2\n1 3\n2\n"), 1, "list 4 neighbours, but the header announces m = 3");
  // A directed-looking file: every edge once.
  expect_parse_error(write("g.graph", "3 2\n2\n3\n\n"), 1, "each edge is listed once: METIS graphs are undirected");
  expect_parse_error(write("h.graph", "3 2 1\n2 7\n1 7 3\n2 3\n"), 3, "neighbour 3 has no edge weight");
  expect_parse_error(write("i.graph", "3 2 10\n4 2\n\n4 2\n"), 3, "vertex 2: an empty line, but fmt 010");
  expect_parse_error(write("j.metis", "3 2 2\n2\n1 3\n2\n"), 1, "fmt '2' is not up to three digits 0 or 1",
                     FileFormat::Metis);
  expect_parse_error(write("k.metis", "3 2 1 2\n"), 1, "ncon given, but fmt 001 has no vertex weights",
                     FileFormat::Metis);
  expect_parse_error(write("l.graph", "3 2\n2\n1 " + std::string(30, '9') + "\n2\n"), 3,
                     "is out of range (more than 64 bits)");
  // Errors of a file read as METIS because of its name say so.
  expect_error(write("m.graph", "3 2\n2\n1 4\n2\n"), FileFormat::Auto, Status::ParseError,
               {"because of the file's name", "--format"});
  // Named like METIS but not a METIS header: warned, and detected from the content.
  std::vector<std::string> warnings;
  const CooData c = read_warned(write("n.graph", "0 1 2.5\n1 2 1\n"), warnings);
  EXPECT_EQ(c.format, FileFormat::EdgeList);
  ASSERT_GE(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("named like a METIS file"), std::string::npos) << warnings[0];
}

TEST_F(IoTest, MetisOrEdgeListIsNotGuessed) {
  // A triangle as METIS: every line two numbers, so also a valid edge list. Refused from the
  // content alone; the name or --format decides.
  const std::string text = "3 3\n2 3\n1 3\n1 2\n";
  const std::string path = write("tri.txt", text);
  expect_error(path, FileFormat::Auto, Status::ParseError,
               {path + ":1:", "METIS", "edge list", "--format metis", "--format edgelist"});
  EXPECT_EQ(read(path, FileFormat::Metis).rows.size(), 6u);
  // As an edge list its first line "3 3" could also be the header line of a 1-based edge list
  // (3 edge lines follow, ids 1..3): refused, unless the header choice is made.
  expect_error(path, FileFormat::EdgeList, Status::ParseError, {path + ":1:", "--index-base 1", "--header no"});
  ReadOptions o;
  o.format = FileFormat::EdgeList;
  o.edge_list_header = ReadOptions::HeaderLine::No;
  EXPECT_EQ(gbcuda::read_coo(path, o).rows.size(), 4u);
  EXPECT_EQ(read(write("tri.graph", text)).format, FileFormat::Metis);
  // Blank lines (isolated vertices) do not make it less ambiguous: an edge list skips them.
  expect_error(write("tri2.txt", "4 3\n2 3\n1 3\n1 2\n\n"), FileFormat::Auto, Status::ParseError, {"METIS"});
  // A METIS file (fmt 10: a vertex weight, then one neighbour) that is also a headerless file.
  std::string both = "10 5 10\n";
  for (int v = 0; v < 10; ++v) both += "1 " + std::to_string(v % 5 + 1) + "\n";
  expect_error(write("hl.txt", both), FileFormat::Auto, Status::ParseError, {"headerless", "METIS"});
  EXPECT_EQ(read(write("hl.graph", both)).stored_entries, 10);
  // An ordinary edge list is not METIS.
  EXPECT_EQ(read(write("el.txt", "0 1\n1 2\n2 0\n")).format, FileFormat::EdgeList);
}

// Reads `text` as an edge list with `header` and `base`; the warnings go to *warnings.
CooData read_edges(const std::string& path, ReadOptions::HeaderLine header, int base,
                   std::vector<std::string>* warnings) {
  gbcuda::ReadReport report;
  ReadOptions o;
  o.format = FileFormat::EdgeList;
  o.edge_list_header = header;
  o.index_base = base;
  o.report = &report;
  o.on_warning = [](const std::string&) {};
  CooData c = gbcuda::read_coo(path, o);
  *warnings = report.warnings;
  return c;
}

bool has(const std::vector<std::string>& warnings, const std::string& part) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

TEST_F(IoTest, EdgeListHeaderLine) {
  using HL = ReadOptions::HeaderLine;
  std::vector<std::string> w;
  // "N M", then exactly M edge lines with ids below N: a header, said in a warning that names
  // the file, the line and the override. Detected as an edge list.
  const std::string hdr = write("hdr.txt", "# SNAP-like\n6 3\n0 1\n1 2\n3 4\n");
  CooData c = read_edges(hdr, HL::Auto, 0, &w);
  EXPECT_EQ(read(hdr).format, FileFormat::EdgeList);
  EXPECT_EQ(c.nrows, 6);
  EXPECT_EQ(c.stored_entries, 3);
  EXPECT_EQ(c.header, "edgelist, header line");
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 1, 1}, {1, 2, 1}, {3, 4, 1}}));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find(hdr + ":2: read '6 3' as a header line (6 vertices, 3 edges)"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("--header no"), std::string::npos);
  // Weighted edge lines after it; commas.
  c = read_edges(write("hdrw.csv", "4,2\n0,1,2.5\n2,3,1\n"), HL::Auto, 0, &w);
  EXPECT_EQ(c.nrows, 4);
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 1, 2.5}, {2, 3, 1}}));
  // Forced either way.
  c = read_edges(hdr, HL::No, 0, &w);
  EXPECT_EQ(c.nrows, 7);
  EXPECT_EQ(c.stored_entries, 4);
  EXPECT_EQ(triplets(c)[0], (Triplet{6, 3, 1}));
  EXPECT_TRUE(w.empty());
  c = read_edges(hdr, HL::Yes, 0, &w);
  EXPECT_EQ(c.nrows, 6);
  EXPECT_TRUE(w.empty());
  // A 1-based file with its header: read with index base 1; refused under base 0, naming both
  // choices.
  const std::string one = write("one.txt", "5 3\n1 2\n2 3\n4 5\n");
  c = read_edges(one, HL::Auto, 1, &w);
  EXPECT_EQ(c.nrows, 5);
  EXPECT_EQ(triplets(c), (std::vector<Triplet>{{0, 1, 1}, {1, 2, 1}, {3, 4, 1}}));
  expect_parse_error(one, 1, "looks like the header line of a 1-based edge list", FileFormat::EdgeList);
  expect_error(one, FileFormat::Auto, Status::ParseError, {"--index-base 1", "--header no"});
  EXPECT_EQ(read_edges(one, HL::No, 0, &w).nrows, 6);
  // Near misses are edges, with a warning naming the mismatch: a count that differs...
  const std::string count = write("count.txt", "5 4\n0 1\n1 2\n3 4\n");
  c = read_edges(count, HL::Auto, 0, &w);
  EXPECT_EQ(c.nrows, 6);
  EXPECT_EQ(c.stored_entries, 4);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find(count + ":1: read '5 4' as an edge"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("3 edge lines follow, not 4"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("--header yes"), std::string::npos) << w[0];
  // ... or ids beyond N.
  const std::string ids = write("ids.txt", "3 3\n0 1\n1 2\n3 4\n");
  c = read_edges(ids, HL::Auto, 0, &w);
  EXPECT_EQ(c.nrows, 5);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("their ids go up to 4, beyond 3 vertices"), std::string::npos) << w[0];
  // Forced as a header, the mismatches are warned about and the matrix holds every id.
  c = read_edges(ids, HL::Yes, 0, &w);
  EXPECT_EQ(c.nrows, 5);
  EXPECT_EQ(c.stored_entries, 3);
  EXPECT_TRUE(has(w, "announces 3 vertices, but the ids go up to 4: the matrix has 5 vertices"));
  c = read_edges(count, HL::Yes, 0, &w);
  EXPECT_EQ(c.nrows, 5);
  EXPECT_TRUE(has(w, "announces 4 edges, but 3 edge lines follow"));
  // A near miss whose later lines have weights is neither an edge (two columns) nor a header.
  expect_parse_error(write("nw.txt", "5 4\n0 1 1\n1 2 1\n3 4 1\n"), 1, "has two columns and the edge lines after it",
                     FileFormat::EdgeList);
  // --header yes needs "N M" first.
  try {
    read_edges(write("nohdr2.txt", "0 1 2.5\n"), HL::Yes, 0, &w);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(":1: expected a header line"), std::string::npos) << e.what();
  }
  // Large enough to be parsed in parallel chunks: the header line is dropped, every edge kept in
  // file order; the same file without its header line reads as the ordinary edge list it is.
  std::string big = "300000 200000\n", plain;
  for (int e = 0; e < 200000; ++e) plain += std::to_string(e) + " " + std::to_string((e * 7) % 300000) + "\n";
  c = read_edges(write("big.txt", big + plain), HL::Auto, 0, &w);
  EXPECT_EQ(c.nrows, 300000);
  EXPECT_EQ(c.stored_entries, 200000);
  ASSERT_EQ(c.rows.size(), 200000u);
  EXPECT_EQ(triplets(c)[0], (Triplet{0, 0, 1}));
  EXPECT_EQ(triplets(c)[199999], (Triplet{199999, (199999 * 7) % 300000, 1}));
  EXPECT_EQ(triplets(read_edges(write("bigplain.txt", plain), HL::Auto, 0, &w)), triplets(c));
  EXPECT_TRUE(w.empty());
  // One line "N 0": the header of a graph without edges (the warning says how to read it as an
  // edge).
  c = read_edges(write("none.txt", "7 0\n"), HL::Auto, 0, &w);
  EXPECT_EQ(c.nrows, 7);
  EXPECT_EQ(c.stored_entries, 0);
  EXPECT_TRUE(has(w, "read '7 0' as a header line"));
  // Ordinary edge lists are untouched: no warning.
  for (const char* text : {"0 1\n1 2\n2 0\n", "1 2\n0 1\n", "0 2\n1 2\n2 0\n", "7 1\n"}) {
    SCOPED_TRACE(text);
    read_edges(write("plain.txt", text), HL::Auto, 0, &w);
    EXPECT_TRUE(
        std::none_of(w.begin(), w.end(), [](const std::string& s) { return s.find("header") != std::string::npos; }));
  }
}

TEST_F(IoTest, SnapCountComments) {
  using HL = ReadOptions::HeaderLine;
  std::vector<std::string> w;
  // Nodes sizes the matrix (isolated vertices at the end kept); Edges matches: no warning.
  const std::string snap = write("web.txt",
                                 "# Directed graph (each unordered pair of nodes is saved once): web.txt\n"
                                 "# Nodes: 10 Edges: 3\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n3\t4\n");
  CooData c = read_edges(snap, HL::Auto, 0, &w);
  EXPECT_EQ(c.nrows, 10);
  EXPECT_EQ(c.stored_entries, 3);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(read(snap).nrows, 10);
  // 1-based ids fit in Nodes under index base 1.
  EXPECT_EQ(read_edges(write("one.txt", "# Nodes: 5 Edges: 1\n1 5\n"), HL::Auto, 1, &w).nrows, 5);
  EXPECT_TRUE(w.empty());
  // Ids beyond Nodes (SNAP ids need not be contiguous): sized by the largest id, said; an edge
  // count that differs: said.
  const std::string gaps = write("gaps.txt", "# Nodes: 4 Edges: 4\n0 1\n1 2\n3 7\n");
  c = read_edges(gaps, HL::Auto, 0, &w);
  EXPECT_EQ(c.nrows, 8);
  EXPECT_TRUE(has(w, gaps + ":1: the comment '# Nodes: 4 Edges: 4' announces 4 edges, but the file has 3 edge lines"));
  EXPECT_TRUE(has(w, "announces 4 nodes, but the ids go up to 7 (ids need not be contiguous): the matrix has 8"));
  // Only leading comments count.
  EXPECT_EQ(read_edges(write("late.txt", "0 1\n# Nodes: 10 Edges: 1\n"), HL::Auto, 0, &w).nrows, 2);
}

TEST_F(IoTest, DimacsAndPace) {
  // 9th DIMACS challenge shortest paths: directed weighted arcs, 'c' comments anywhere.
  const CooData sp = read(write("road.gr", "c a road\n\nc more\np sp 4 3\nc arcs\na 1 2 7\na 2 3 1.5\na 4 4 2\n"));
  EXPECT_EQ(sp.format, FileFormat::Dimacs);
  EXPECT_EQ(sp.header, "dimacs sp");
  EXPECT_EQ(sp.nrows, 4);
  EXPECT_EQ(sp.ncols, 4);
  EXPECT_EQ(sp.stored_entries, 3);
  EXPECT_EQ(triplets(sp), (std::vector<Triplet>{{0, 1, 7}, {1, 2, 1.5}, {3, 3, 2}}));
  // PACE treewidth: undirected edges, both directions stored (a self loop once); detected from
  // the content whatever the name.
  const CooData tw = read(write("pace.txt", "c pace\np tw 5 3\n1 2\n2 3\n5 5\n"));
  EXPECT_EQ(tw.format, FileFormat::Dimacs);
  EXPECT_EQ(tw.header, "pace tw");
  EXPECT_EQ(tw.nrows, 5);
  EXPECT_EQ(tw.stored_entries, 3);
  EXPECT_TRUE(tw.values.empty());
  EXPECT_EQ(triplets(tw), (std::vector<Triplet>{{0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 1, 1}, {4, 4, 1}}));
  // DIMACS coloring: "p edge" and its older spelling "p col", lines "e u v".
  for (const char* kind : {"edge", "col"}) {
    const CooData col = read(write("g.col", std::string("c x\np ") + kind + " 3 2\ne 1 2\ne 3 1\n"));
    EXPECT_EQ(col.header, "dimacs edge");
    EXPECT_EQ(triplets(col), (std::vector<Triplet>{{0, 1, 1}, {1, 0, 1}, {2, 0, 1}, {0, 2, 1}}));
  }
  // Asked for by name; an empty graph.
  EXPECT_EQ(read(write("empty.gr", "p sp 0 0\n"), FileFormat::Dimacs).nrows, 0);
  // Matrix values are the weights.
  const auto W = gbcuda::read_matrix<double>(write("w.gr", "p sp 3 2\na 1 2 7\na 1 2 3\n"));
  EXPECT_EQ(W.nvals(), 1);
}

TEST_F(IoTest, DimacsErrors) {
  // Counts and ids are checked, each error naming the file and line.
  expect_parse_error(write("short.gr", "p sp 3 3\na 1 2 1\na 2 3 1\n"), 3,
                     "unexpected end of file: the problem line announces 3 arcs, found 2");
  expect_parse_error(write("long.gr", "c\np tw 3 1\n1 2\nc\n2 3\n"), 5,
                     "too many edges: the problem line (line 2) announces 1, the file has 2");
  expect_parse_error(write("range.gr", "p sp 3 2\na 1 2 1\na 2 4 1\n"), 3, "vertex id 4 out of range (valid: 1..3)");
  expect_parse_error(write("zero.gr", "p tw 3 1\n0 1\n"), 2, "vertex id 0 out of range (valid: 1..3)");
  expect_parse_error(write("weight.gr", "p sp 3 1\na 1 2 x\n"), 2, "weight 'x' is not a number");
  expect_parse_error(write("kind.gr", "p sp 3 1\ne 1 2\n"), 2, "expected 'a u v w' (the lines of a 'p sp' file)");
  expect_parse_error(write("noweight.gr", "p sp 3 1\na 1 2\n"), 2, "expected 'a u v w'");
  expect_parse_error(write("id.gr", "p tw 3 1\n1 y\n"), 2, "vertex id 'y' is not an integer");
  expect_parse_error(write("twice.gr", "p tw 3 1\np tw 3 1\n1 2\n"), 2, "a second problem line");
  // Other DIMACS problems are refused by name, not read as something else.
  expect_parse_error(write("flow.max", "c flow\np max 4 3\nn 1 s\n"), 2, "'p max 4 3' names a kind of DIMACS file");
  // Asked for, but no problem line.
  expect_parse_error(write("nop.txt", "c only\n1 2\n"), 2, "expected the problem line 'p sp|tw|edge",
                     FileFormat::Dimacs);
  // A *.gr name without a problem line: a warning, then the content decides.
  gbcuda::ReadReport report;
  ReadOptions o;
  o.report = &report;
  o.on_warning = [](const std::string&) {};
  const std::string el = write("edges.gr", "0 1\n1 2\n");
  EXPECT_EQ(gbcuda::read_coo(el, o).format, FileFormat::EdgeList);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find(el + ": named like a DIMACS or PACE graph (*.gr)"), std::string::npos);
}

TEST(IoFormats, Names) {
  for (FileFormat f : {FileFormat::Auto, FileFormat::MatrixMarket, FileFormat::Headerless, FileFormat::Rodinia,
                       FileFormat::EdgeList, FileFormat::Binary, FileFormat::Metis, FileFormat::Dimacs}) {
    EXPECT_EQ(gbcuda::parse_format(gbcuda::to_string(f)), f);
  }
  EXPECT_STREQ(gbcuda::to_string(FileFormat::Metis), "metis");
  EXPECT_STREQ(gbcuda::to_string(FileFormat::Dimacs), "dimacs");
  EXPECT_STREQ(gbcuda::to_string(FileFormat::MatrixMarket), "mtx");
  try {
    gbcuda::parse_format("csv");
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidValue);
    EXPECT_NE(std::string(e.what()).find("csv"), std::string::npos);
  }
}

// ---- bad inputs ----------------------------------------------------------------------------

TEST_F(IoTest, MatrixMarketErrors) {
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  // Truncated: the last line is named, with the counts.
  expect_parse_error(write("trunc.mtx", banner + "3 3 3\n1 1 1\n2 2 2\n"), 4, "expected 3 entries, found 2");
  // One entry too many: its line is named.
  expect_parse_error(write("extra.mtx", banner + "% c\n3 3 1\n1 1 1\n\n2 2 2\n"), 6, "too many entries");
  // Index out of range: the index and the bound.
  expect_parse_error(write("range.mtx", banner + "3 3 2\n1 1 1\n4 1 1\n"), 4, "row index 4 out of range (valid: 1..3)");
  expect_parse_error(write("range0.mtx", banner + "3 3 1\n1 0 1\n"), 3, "column index 0 out of range (valid: 1..3)");
  // Malformed numbers.
  expect_parse_error(write("num.mtx", banner + "3 3 2\n1 1 1\n2 x 1\n"), 4, "'x' is not an integer");
  expect_parse_error(write("val.mtx", banner + "3 3 1\n1 1 2.5abc\n"), 3, "'2.5abc' is not a number");
  expect_parse_error(write("cols.mtx", banner + "3 3 1\n1 1\n"), 3, "expected 3 columns");
  expect_parse_error(write("size.mtx", banner + "3 x 1\n"), 2, "bad size line");
  expect_parse_error(write("neg.mtx", banner + "-3 3 1\n"), 2, "negative size -3");
  expect_parse_error(write("nosize.mtx", banner + "% only a comment\n"), 2, "missing the size line");
  // Banners.
  expect_parse_error(write("herm.mtx", "%%MatrixMarket matrix coordinate pattern hermitian\n2 2 0\n"), 1,
                     "unsupported combination");
  expect_parse_error(write("rherm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n2 2 0\n"), 1,
                     "unsupported combination");
  expect_parse_error(write("apat.mtx", "%%MatrixMarket matrix array pattern general\n2 2\n"), 1,
                     "unsupported combination");
  expect_parse_error(write("vec.mtx", "%%MatrixMarket vector coordinate real general\n2 2 0\n"), 1,
                     "unsupported Matrix Market object 'vector'");
  expect_parse_error(write("field.mtx", "%%MatrixMarket matrix coordinate quaternion general\n2 2 0\n"), 1,
                     "unknown Matrix Market field");
  expect_parse_error(write("sym.mtx", "%%MatrixMarket matrix coordinate real lower\n2 2 0\n"), 1,
                     "unknown Matrix Market symmetry");
  expect_parse_error(write("short.mtx", "%%MatrixMarket matrix coordinate\n2 2 0\n"), 1, "incomplete");
  expect_parse_error(write("nobanner.mtx", "2 2 0\n"), 1, "missing %%MatrixMarket banner", FileFormat::MatrixMarket);
  expect_parse_error(write("square.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n"), 2,
                     "must be square");
  // Arrays.
  expect_parse_error(write("atrunc.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n"), 5,
                     "expected 4 values, found 3");
  expect_parse_error(write("aextra.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n2\n"), 4,
                     "too many values");
}

TEST_F(IoTest, MissingAndEmptyFiles) {
  const std::string missing = (dir_ / "does_not_exist.mtx").string();
  expect_error(missing, FileFormat::Auto, Status::IoError, {"cannot open " + missing, "No such file"});
  try {
    gbcuda::detect_format(missing);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::IoError);
  }
  expect_error(dir_.string(), FileFormat::Auto, Status::IoError, {dir_.string()});

  const std::string empty = write("empty.mtx", "");
  expect_error(empty, FileFormat::Auto, Status::ParseError,
               {"cannot detect the format of " + empty, "line 1", "use --format"});
  expect_parse_error(empty, 1, "empty file", FileFormat::MatrixMarket);
  expect_parse_error(empty, 1, "empty file", FileFormat::Headerless);
  expect_error(empty, FileFormat::Rodinia, Status::ParseError, {empty + ":1:", "unexpected end of file"});

  const std::string garbage = write("garbage.txt", "# header\nhello world\n");
  expect_error(garbage, FileFormat::Auto, Status::ParseError,
               {"cannot detect the format of " + garbage, "line 2", "use --format"});
}

TEST_F(IoTest, HeaderlessErrors) {
  expect_parse_error(write("t.txt", "3 3 3\n1 1 1\n2 2 2\n"), 3, "expected 3 entries, found 2", FileFormat::Headerless);
  expect_parse_error(write("x.txt", "3 3 1\n1 1 1\n2 2 2\n"), 3, "too many entries", FileFormat::Headerless);
  expect_parse_error(write("r.txt", "3 3 2\n1 1 1\n1 9 1\n"), 3, "column index 9 out of range (valid: 1..3)",
                     FileFormat::Headerless);
  // Values on some lines only.
  expect_parse_error(write("m.txt", "3 3 2\n1 1 1\n2 2\n"), 3, "expected 3 columns", FileFormat::Headerless);
  expect_parse_error(write("n.txt", "3 -3 0\n"), 1, "negative size -3", FileFormat::Headerless);
  // Detected as headerless by its shape, but with a wrong count: a headerless message naming both
  // counts, not an edge-list one.
  for (const char* text : {"3 3 3\n1 1 1\n2 2 2\n", "3 3 1\n1 2\n2 3\n3 1\n"}) {
    SCOPED_TRACE(text);
    const std::string path = write("count.txt", text);
    const std::string found = text[4] == '3' ? "2 follow" : "3 follow";
    expect_error(path, FileFormat::Auto, Status::ParseError,
                 {path + ":1:", "headerless", "announcing " + std::string(1, text[4]) + " entries", found, "--format"});
  }
  // Asked for as an edge list, the same lines are an edge list.
  EXPECT_EQ(read(write("el.txt", "3 3 1\n1 2 1\n2 3 1\n"), FileFormat::EdgeList).stored_entries, 3);
}

TEST_F(IoTest, RodiniaErrors) {
  // Degrees that do not add up to m (vertex 3 claims two edges).
  expect_parse_error(write("a.rodinia.txt", "4\n0 2\n2 1\n3 0\n3 2\n2\n4\n1 5\n2 7\n0 1\n1 3\n"), 5,
                     "vertex 3: edges 3..4 lie outside the 4 edges");
  expect_parse_error(write("b.rodinia.txt", "4\n0 2\n2 1\n3 0\n3 0\n2\n4\n1 5\n2 7\n0 1\n1 3\n"), 7,
                     "add up to 3, but the edge count is 4");
  // Destination out of range.
  expect_parse_error(write("c.rodinia.txt", "4\n0 2\n2 1\n3 0\n3 1\n2\n4\n1 5\n9 7\n0 1\n1 3\n"), 9,
                     "destination vertex 9 out of range (valid: 0..3)");
  // Truncated edge section, and one edge too many.
  expect_parse_error(write("d.rodinia.txt", "4\n0 2\n2 1\n3 0\n3 1\n2\n4\n1 5\n2 7\n0 1\n"), 10,
                     "expected 4 edge lines 'dest cost', found 3");
  expect_parse_error(write("e.rodinia.txt", std::string(kRodinia) + "3 3\n"), 12, "too many lines");
  // Truncated vertex section.
  expect_parse_error(write("f.rodinia.txt", "4\n0 2\n2 1\n"), 3, "expected 4 vertex lines");
  // Bad numbers and a bad source.
  expect_parse_error(write("g.rodinia.txt", "4\n0 2\n2 z\n3 0\n3 1\n2\n4\n1 5\n2 7\n0 1\n1 3\n"), 3,
                     "'z' is not an integer");
  expect_parse_error(write("h.rodinia.txt", "4\n0 2\n2 1\n3 0\n3 1\n7\n4\n1 5\n2 7\n0 1\n1 3\n"), 6,
                     "source vertex 7 out of range");
  expect_parse_error(write("i.rodinia.txt", "-4\n"), 1, "negative vertex count");
}

TEST_F(IoTest, EdgeListErrors) {
  expect_parse_error(write("a.txt", "0 1\n-1 2\n"), 2, "negative vertex id -1", FileFormat::EdgeList);
  expect_parse_error(write("b.txt", "0 1 2.0\n1 2\n"), 2, "expected 3 columns", FileFormat::EdgeList);
  expect_parse_error(write("c.txt", "0 1\n1 2 3\n"), 2, "expected 2 columns", FileFormat::EdgeList);
  expect_parse_error(write("d.txt", "# c\n0 1\n1 two\n"), 3, "'two' is not an integer", FileFormat::EdgeList);
  expect_parse_error(write("e.txt", "0 1 x\n"), 1, "'x' is not a number", FileFormat::EdgeList);
  expect_parse_error(write("f.txt", "0 1 2 3\n"), 1, "expected 2 or 3 columns", FileFormat::EdgeList);
  expect_parse_error(write("g.txt", "0 99999999999\n"), 1, "too large", FileFormat::EdgeList);
}

TEST_F(IoTest, NumbersPast64BitsAreOutOfRange) {
  // from_chars reports result_out_of_range: say so rather than "not an integer".
  const std::string big = "99999999999999999999";  // 2^66 and more
  expect_parse_error(write("a.txt", "0 1\n1 " + big + "\n"), 2,
                     "column index '" + big + "' is out of range (more than 64 bits)", FileFormat::EdgeList);
  expect_parse_error(write("b.mtx", "%%MatrixMarket matrix coordinate pattern general\n-" + big + " 3 1\n"), 2,
                     "bad size line: '-" + big + "' is out of range", FileFormat::MatrixMarket);
  expect_parse_error(write("c.txt", "3 " + big + " 1\n1 1\n"), 1, "'" + big + "' is out of range",
                     FileFormat::Headerless);
  expect_parse_error(write("d.rodinia.txt", "1\n0 " + big + "\n"), 2, "'" + big + "' is out of range");
  // A token that is not a number at all is still "not an integer".
  expect_parse_error(write("e.txt", "0 1\n1 1e3\n"), 2, "'1e3' is not an integer", FileFormat::EdgeList);
}

TEST_F(IoTest, MessagesEscapeControlBytes) {
  // Bytes of the file quoted in a message are escaped: no raw control byte reaches a terminal.
  try {
    read(write("ctl.txt", "0 1\n1 \x1b[2Jx\x01\n"), FileFormat::EdgeList);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("column index '\\x1b[2Jx\\x01' is not an integer"), std::string::npos) << what;
    for (const char c : what) EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) << what;
  }
}

template <class T>
void expect_same_csr(const gbcuda::Matrix<T>& a, const gbcuda::Matrix<T>& b);

// ---- inputs read once, as streams -----------------------------------------------------------

// Writes `bytes` into one end of a pipe from a thread; the reader reads "/dev/fd/N".
class PipeWriter {
 public:
  explicit PipeWriter(std::string bytes) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    read_fd_ = fds[0];
    thread_ = std::thread([w = fds[1], b = std::move(bytes)] {
      std::size_t done = 0;
      while (done < b.size()) {
        const ssize_t n = ::write(w, b.data() + done, b.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
      }
      ::close(w);
    });
  }
  ~PipeWriter() {
    ::close(read_fd_);  // a writer still blocked gets EPIPE (SIGPIPE is ignored in these tests)
    thread_.join();
  }
  std::string path() const { return "/dev/fd/" + std::to_string(read_fd_); }

 private:
  int read_fd_;
  std::thread thread_;
};

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST_F(IoTest, PipesAreReadOnce) {
  ::signal(SIGPIPE, SIG_IGN);
  // A symmetric Matrix Market file through a pipe, with detection and with the format given:
  // the bytes read to detect the format are the bytes parsed.
  const std::string mtx = file_bytes(sample_path("karate.mtx"));
  for (FileFormat format : {FileFormat::Auto, FileFormat::MatrixMarket}) {
    PipeWriter pipe(mtx);
    const CooData c = read(pipe.path(), format);
    EXPECT_EQ(c.format, FileFormat::MatrixMarket);
    EXPECT_EQ(c.nrows, 34);
    EXPECT_EQ(c.stored_entries, 78);
    EXPECT_EQ(c.rows.size(), 156u);
  }
  // Every sample through a pipe reads as the file does.
  for (const char* name : {"cavity02_headerless.txt", "graph4096.rodinia.txt", "west0067.mtx"}) {
    SCOPED_TRACE(name);
    const CooData from_file = read(sample_path(name));
    PipeWriter pipe(file_bytes(sample_path(name)));
    ReadOptions o;
    o.progress = ReadOptions::Progress::Never;
    if (from_file.format == FileFormat::Rodinia) o.format = FileFormat::Rodinia;  // detected by name
    const CooData c = gbcuda::read_coo(pipe.path(), o);
    EXPECT_EQ(c.format, from_file.format);
    EXPECT_EQ(triplets(c), triplets(from_file));
  }
  // A .gbc through a pipe: detected from its first bytes and parsed from memory.
  const auto A = gbcuda::read_matrix<double>(sample_path("west0067.mtx"));
  const std::string gbc = (dir_ / "w.gbc").string();
  gbcuda::write_binary_graph(gbc, A);
  for (FileFormat format : {FileFormat::Auto, FileFormat::Binary}) {
    PipeWriter pipe(file_bytes(gbc));
    ReadOptions o;
    o.format = format;
    gbcuda::ReadReport report;
    o.report = &report;
    expect_same_csr(A, gbcuda::read_matrix<double>(pipe.path(), o));
    EXPECT_EQ(report.format, FileFormat::Binary);
    EXPECT_EQ(report.header, "gbc values");
    PipeWriter again(file_bytes(gbc));
    const CooData c = read(again.path(), format);
    EXPECT_EQ(c.format, FileFormat::Binary);
    EXPECT_EQ(c.stored_entries, A.nvals());
  }
  // A truncated .gbc through a pipe is reported as truncated.
  PipeWriter cut(file_bytes(gbc).substr(0, 100));
  expect_error(cut.path(), FileFormat::Auto, Status::ParseError, {cut.path(), "truncated"});
  // A pipe whose writer wrote nothing: an empty file, at once (the writer has gone).
  PipeWriter empty("");
  expect_error(empty.path(), FileFormat::Auto, Status::ParseError, {"cannot detect the format", "no data lines"});
}

// ---- compressed inputs -------------------------------------------------------------------

enum class Packer { Gzip, Xz, Bzip2 };
const char* suffix(Packer p) { return p == Packer::Gzip ? ".gz" : p == Packer::Xz ? ".xz" : ".bz2"; }

// `text` compressed as gzip, xz or bzip2 would (in memory, with the libraries the reader uses).
std::string pack(const std::string& text, Packer p) {
  std::string out;
  if (p == Packer::Gzip) {
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("zlib");
    out.resize(deflateBound(&z, static_cast<uLong>(text.size())));
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
    out.resize(z.total_out);
    deflateEnd(&z);
  } else if (p == Packer::Xz) {
    out.resize(lzma_stream_buffer_bound(text.size()));
    std::size_t pos = 0;
    if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(text.data()),
                                text.size(), reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()) != LZMA_OK)
      throw std::runtime_error("lzma");
    out.resize(pos);
  } else {
    unsigned len = static_cast<unsigned>(text.size() + text.size() / 100 + 600);
    out.resize(len);
    if (BZ2_bzBuffToBuffCompress(out.data(), &len, const_cast<char*>(text.data()), static_cast<unsigned>(text.size()),
                                 9, 0, 0) != BZ_OK)
      throw std::runtime_error("bzip2");
    out.resize(len);
  }
  return out;
}

constexpr Packer kPackers[] = {Packer::Gzip, Packer::Xz, Packer::Bzip2};

TEST_F(IoTest, CompressedFilesAreReadAsTheirContent) {
  ::signal(SIGPIPE, SIG_IGN);
  for (const Packer p : kPackers) {
    SCOPED_TRACE(suffix(p));
    // Every text format (detected, with the name rules applied to the name without the suffix),
    // by file, by pipe, and named without the suffix (the magic decides).
    for (const char* name : {"karate.mtx", "cavity02_headerless.txt", "graph4096.rodinia.txt"}) {
      SCOPED_TRACE(name);
      const CooData plain = read(sample_path(name));
      const std::string packed = pack(file_bytes(sample_path(name)), p);
      const CooData c = read(write(std::string(name) + suffix(p), packed));
      EXPECT_EQ(c.format, plain.format);
      EXPECT_EQ(triplets(c), triplets(plain));
      if (plain.format != FileFormat::Rodinia) {  // Rodinia is told by its name
        EXPECT_EQ(triplets(read(write("nosuffix", packed))), triplets(plain));
        PipeWriter pipe(packed);
        EXPECT_EQ(triplets(read(pipe.path())), triplets(plain));
      }
    }
    // A METIS file named *.graph + suffix gets METIS's line limit and detection by name.
    const std::string metis = "3 2\n2 3\n1\n1\n";
    EXPECT_EQ(read(write(std::string("m.graph") + suffix(p), pack(metis, p))).format, FileFormat::Metis);
    // Members or streams one after another are one input, as gunzip, xz -d and bunzip2 read them.
    const std::string text = file_bytes(sample_path("karate.mtx"));
    const std::string two = pack(text.substr(0, 500), p) + pack(text.substr(500), p);
    EXPECT_EQ(triplets(read(write(std::string("two") + suffix(p), two))), triplets(read(sample_path("karate.mtx"))));
  }
}

TEST_F(IoTest, CompressedBinaryGraph) {
  ::signal(SIGPIPE, SIG_IGN);
  const auto A = gbcuda::read_matrix<double>(sample_path("west0067.mtx"));
  const std::string gbc = (dir_ / "w.gbc").string();
  gbcuda::write_binary_graph(gbc, A);
  for (const Packer p : kPackers) {
    SCOPED_TRACE(suffix(p));
    const std::string packed = pack(file_bytes(gbc), p);
    const std::string path = write(std::string("w.gbc") + suffix(p), packed);
    gbcuda::ReadReport report;
    ReadOptions o;
    o.report = &report;
    expect_same_csr(A, gbcuda::read_matrix<double>(path, o));
    EXPECT_EQ(report.format, FileFormat::Binary);
    expect_same_csr(A, gbcuda::read_binary_graph<double>(path));
    expect_same_csr(A, gbcuda::read_relabelled_graph<double>(path).matrix);
    EXPECT_EQ(gbcuda::detect_format(path), FileFormat::Binary);
    PipeWriter pipe(packed);
    expect_same_csr(A, gbcuda::read_matrix<double>(pipe.path()));
  }
}

TEST_F(IoTest, BadCompressedDataIsRefused) {
  ::signal(SIGPIPE, SIG_IGN);
  const std::string text = file_bytes(sample_path("west0067.mtx"));
  for (const Packer p : kPackers) {
    SCOPED_TRACE(suffix(p));
    const std::string packed = pack(text, p);
    // Truncated: no partial read, by file or by pipe, at any cut.
    for (const std::size_t cut : {std::size_t(8), packed.size() / 2, packed.size() - 1}) {
      SCOPED_TRACE(cut);
      const std::string path = write(std::string("cut") + suffix(p), packed.substr(0, cut));
      expect_error(path, FileFormat::Auto, Status::ParseError, {path + ": truncated"});
      expect_error(path, FileFormat::MatrixMarket, Status::ParseError, {path + ": truncated"});
      PipeWriter pipe(packed.substr(0, cut));
      expect_error(pipe.path(), FileFormat::Auto, Status::ParseError, {pipe.path() + ": truncated"});
    }
    // Corrupt: a flipped byte in the middle.
    std::string bad = packed;
    bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x55);
    const std::string bad_path = write(std::string("bad") + suffix(p), bad);
    expect_error(bad_path, FileFormat::Auto, Status::ParseError, {bad_path + ": "});
    // Something that is not a further stream after the end.
    const std::string tail_path = write(std::string("tail") + suffix(p), packed + "trailing text\n");
    expect_error(tail_path, FileFormat::Auto, Status::ParseError, {tail_path + ": corrupt"});
    // The text checks apply to the decompressed bytes: a NUL byte, an endless line.
    const std::string nul = write(std::string("nul") + suffix(p), pack(std::string("0 1\n1 \0 2\n", 10), p));
    expect_parse_error(nul, 2, "NUL byte");
    ReadOptions o;
    o.max_line_bytes = 1000;
    const std::string long_line = write(std::string("long") + suffix(p), pack(std::string(100000, '1') + "\n", p));
    try {
      gbcuda::read_coo(long_line, o);
      ADD_FAILURE() << "an endless line was read";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(long_line + ":1: line longer than 1000 bytes"), std::string::npos)
          << e.what();
    }
  }
  // A name that promises a compression the content does not have.
  const std::string plain = write("plain.mtx.gz", text);
  expect_error(plain, FileFormat::Auto, Status::ParseError, {plain + ": named like a gzip file", "not compressed"});
  const std::string other = write("other.mtx.bz2", pack(text, Packer::Xz));
  expect_error(other, FileFormat::Auto, Status::ParseError, {other + ": named like a bzip2 file", "xz data"});
  const std::string gbc_named = (dir_ / "raw.gbc.gz").string();
  gbcuda::write_binary_graph(gbc_named, gbcuda::read_matrix<double>(sample_path("west0067.mtx")));
  EXPECT_THROW(gbcuda::read_binary_graph<double>(gbc_named), Error);
}

// An xz stream whose header asks for a 4 GiB dictionary (a few bytes could make the reader
// allocate that much) is refused with a message, not decoded: the header of a real stream with
// its LZMA2 dictionary byte set to the largest code, and the block header's CRC32 made right.
TEST_F(IoTest, XzStreamAskingForAHugeDictionaryIsRefused) {
  std::string xz = pack("0 1\n1 2\n", Packer::Xz);
  const std::size_t block = 12;  // the stream header's size; the block header follows
  const std::size_t header_size = (static_cast<unsigned char>(xz[block]) + 1u) * 4u;
  const std::size_t lzma2 = xz.find("\x21\x01", block);  // filter id LZMA2, one property byte
  ASSERT_LT(lzma2 + 2, block + header_size - 4);
  xz[lzma2 + 2] = 40;  // dictionary 4 GiB - 1
  const std::uint32_t crc = lzma_crc32(reinterpret_cast<const uint8_t*>(xz.data() + block), header_size - 4, 0);
  for (int k = 0; k < 4; ++k) xz[block + header_size - 4 + k] = static_cast<char>((crc >> (8 * k)) & 0xffu);
  const std::string path = write("huge-dictionary.txt.xz", xz);
  expect_error(path, FileFormat::Auto, Status::ParseError, {path + ": ", "MiB to decompress"});
}

TEST_F(IoTest, CompressedBytesInMemory) {
  // The fuzz target's entry decompresses as files do.
  const std::string text = file_bytes(sample_path("karate.mtx"));
  ReadOptions o;
  o.progress = ReadOptions::Progress::Never;
  for (const Packer p : kPackers) {
    const auto in = gbcuda::io_detail::input_from_bytes(pack(text, p), "mem", o);
    ASSERT_NE(in.text(), nullptr);
    EXPECT_EQ(std::string(in.text()->begin(), in.text()->end()), text);
    EXPECT_EQ(gbcuda::io_detail::read_coo_input(in, o).stored_entries, 78);
  }
}

TEST_F(IoTest, ReportAndWarnings) {
  gbcuda::ReadReport report;
  ReadOptions o;
  o.report = &report;
  const CooData c = gbcuda::read_coo(sample_path("karate.mtx"), o);
  EXPECT_EQ(report.format, FileFormat::MatrixMarket);
  EXPECT_EQ(report.header, "coordinate pattern symmetric");
  EXPECT_TRUE(report.warnings.empty());
  gbcuda::read_matrix<bool>(sample_path("cavity02_headerless.txt"), o);
  EXPECT_EQ(report.format, FileFormat::Headerless);
  EXPECT_EQ(report.header, "headerless real");
}

TEST_F(IoTest, FifoWithoutWriterWaitsBounded) {
  const std::string fifo = (dir_ / "f.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::string> seen;
  ReadOptions o;
  o.fifo_wait_seconds = 0.3;
  o.on_warning = [&](const std::string& w) { seen.push_back(w); };
  const auto t0 = std::chrono::steady_clock::now();
  try {
    gbcuda::read_coo(fifo, o);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::IoError);
    EXPECT_NE(std::string(e.what()).find("cannot read " + fifo + ": nothing was written to the FIFO within 0.3 s"),
              std::string::npos)
        << e.what();
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(waited, 0.25);
  EXPECT_LT(waited, 10.0);
  ASSERT_EQ(seen.size(), 1u);  // said once, before waiting
  EXPECT_NE(seen[0].find(fifo + ": a FIFO with nothing written yet; waiting up to 0.3 s for a writer"),
            std::string::npos)
      << seen[0];

  // A writer that comes later: the warning, then the graph.
  seen.clear();
  o.fifo_wait_seconds = 30;
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::ofstream(fifo) << "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n";
  });
  const CooData c = gbcuda::read_coo(fifo, o);
  writer.join();
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(c.format, FileFormat::MatrixMarket);
  EXPECT_EQ(c.rows.size(), 4u);
}

TEST_F(IoTest, NulBytesAndEndlessLinesStopTheRead) {
  // A NUL byte is named with its line and column, and does not cut the message.
  expect_parse_error(write("nul.txt", std::string("0 1\n1 2\0 3\n", 11)), 2,
                     "column 4: NUL byte (binary data in a text file?)", FileFormat::EdgeList);
  expect_parse_error(write("nul.mtx", std::string("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n\0", 56)),
                     3, "column 1: NUL byte");
  // /dev/zero: a NUL byte on line 1, at once (not "out of memory" after filling it).
  expect_parse_error("/dev/zero", 1, "column 1: NUL byte");
  // A line over the limit, named; the limit is an option.
  const std::string path = write("long.txt", "0 1\n" + std::string(3000, '7') + " 1\n");
  ReadOptions o;
  o.max_line_bytes = 1000;
  try {
    gbcuda::read_coo(path, o);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::ParseError);
    EXPECT_NE(std::string(e.what()).find(path + ":2: line longer than 1000 bytes"), std::string::npos) << e.what();
  }
  o.max_line_bytes = 4000;  // now the line is read, and its id refused
  try {
    gbcuda::read_coo(path, o);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2: row index '777"), std::string::npos) << e.what();
  }
  EXPECT_EQ(gbcuda::read_coo(write("ok.txt", "0 1\n" + std::string(3000, ' ') + "1 2\n"), o).stored_entries, 2);

  // An endless line through a socket: stopped while streaming, soon after the limit.
  ::signal(SIGPIPE, SIG_IGN);
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  std::atomic<std::size_t> sent{0};
  std::thread writer([&] {
    const std::string block(1 << 16, 'x');
    while (sent < (std::size_t(1) << 30)) {
      const ssize_t n = ::send(sv[1], block.data(), block.size(), MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    ::close(sv[1]);
  });
  const std::string sock = "/dev/fd/" + std::to_string(sv[0]);
  expect_parse_error(sock, 1, "line longer than 1048576 bytes");
  ::close(sv[0]);
  writer.join();
  EXPECT_LT(sent.load(), std::size_t(64) << 20);
}

// ---- writer --------------------------------------------------------------------------------

template <class T>
void expect_same_csr(const gbcuda::Matrix<T>& a, const gbcuda::Matrix<T>& b) {
  const auto& x = a.csr();
  const auto& y = b.csr();
  EXPECT_EQ(x.nrows, y.nrows);
  EXPECT_EQ(x.ncols, y.ncols);
  EXPECT_EQ(x.row_ptr.to_vector(), y.row_ptr.to_vector());
  EXPECT_EQ(x.col_idx.to_vector(), y.col_idx.to_vector());
  EXPECT_EQ(x.is_iso(), y.is_iso());
  if (!x.is_iso() && !y.is_iso()) {
    EXPECT_EQ(x.values.to_vector(), y.values.to_vector());
  }
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST_F(IoTest, WriteRoundTrip) {
  // Values that need all 17 digits, negative and zero values, an empty row.
  std::vector<Index> r{0, 0, 2, 3, 3}, c{1, 4, 0, 3, 2};
  std::vector<double> v{0.1, -1e-300, 1.0 / 3.0, 0.0, 12345678.875};
  const auto A = gbcuda::Matrix<double>::from_coo(4, 5, r, c, v);
  const std::string p = (dir_ / "a.mtx").string();
  gbcuda::write_matrix_market(p, A);
  EXPECT_EQ(first_line(p), "%%MatrixMarket matrix coordinate real general");
  const auto B = gbcuda::read_matrix<double>(p);
  expect_same_csr(A, B);
  const auto coo = read(p);
  EXPECT_EQ(coo.nrows, 4);
  EXPECT_EQ(coo.ncols, 5);
  EXPECT_EQ(coo.stored_entries, 5);

  const auto P = gbcuda::Matrix<bool>::from_coo(4, 5, r, c);
  gbcuda::write_matrix_market(p, P);  // replaces the file
  EXPECT_EQ(first_line(p), "%%MatrixMarket matrix coordinate pattern general");
  expect_same_csr(P, gbcuda::read_matrix<bool>(p));

  std::vector<std::int32_t> iv{1, -2, 3, 0, 5};
  const auto I = gbcuda::Matrix<std::int32_t>::from_coo(4, 5, r, c, iv);
  gbcuda::write_matrix_market(p, I);
  EXPECT_EQ(first_line(p), "%%MatrixMarket matrix coordinate integer general");
  expect_same_csr(I, gbcuda::read_matrix<std::int32_t>(p));

  std::vector<float> fv{0.1f, -2.5f, 3e-20f, 0.0f, 7.0f};
  const auto F = gbcuda::Matrix<float>::from_coo(4, 5, r, c, fv);
  gbcuda::write_matrix_market(p, F);
  EXPECT_EQ(first_line(p), "%%MatrixMarket matrix coordinate real general");
  expect_same_csr(F, gbcuda::read_matrix<float>(p));

  // A sample: symmetric expansion written out as general, read back identical.
  const auto S = gbcuda::read_matrix<double>(sample_path("bcsstk13.mtx"));
  gbcuda::write_matrix_market(p, S);
  const auto S2 = gbcuda::read_matrix<double>(p);
  EXPECT_EQ(S2.nvals(), 83883);
  expect_same_csr(S, S2);
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"a.mtx"});  // no temporaries left
}

// The narrow and unsigned types: Matrix Market text and .gbc files round trip (uint64_t values
// past INT64_MAX, int8_t written as numbers), a .gbc of one type read as another is cast as
// GraphBLAS casts (a double past int8_t's range saturates, a negative int16_t read as uint8_t
// wraps), and a text value out of an integer type's range saturates.
template <class T>
void narrow_round_trip(const std::string& p, const std::vector<T>& vals) {
  std::vector<Index> r{0, 0, 2, 3}, c{1, 4, 0, 3};
  const auto A = gbcuda::Matrix<T>::from_coo(4, 5, r, c, vals);
  gbcuda::write_matrix_market(p, A);
  EXPECT_EQ(first_line(p), "%%MatrixMarket matrix coordinate integer general") << gbcuda::detail::value_type_name<T>();
  expect_same_csr(A, gbcuda::read_matrix<T>(p));
  expect_same_csr(A, gbcuda::deserialize<T>(gbcuda::serialize(A)));
}
TEST_F(IoTest, NarrowAndUnsignedTypesRoundTrip) {
  const std::string p = (dir_ / "n.mtx").string();
  narrow_round_trip<std::int8_t>(p, {-128, 127, 0, -1});
  narrow_round_trip<std::int16_t>(p, {-32768, 32767, 5, -300});
  narrow_round_trip<std::uint8_t>(p, {255, 0, 1, 200});
  narrow_round_trip<std::uint16_t>(p, {65535, 0, 1, 40000});
  narrow_round_trip<std::uint32_t>(p, {4294967295u, 0, 1, 3000000000u});
  // Text values are read as double: uint64_t values that a double holds exactly.
  narrow_round_trip<std::uint64_t>(p, {std::uint64_t(1) << 63, 0, 1, (std::uint64_t(1) << 53) + 2});
  std::stringstream text;
  text << std::ifstream(p).rdbuf();
  EXPECT_NE(text.str().find("\n1 2 9223372036854775808\n"), std::string::npos) << "not written as a negative";

  // .gbc keeps every bit of a uint64_t.
  std::vector<Index> r{0, 1}, c{1, 0};
  const auto U = gbcuda::Matrix<std::uint64_t>::from_coo(2, 2, r, c, std::vector<std::uint64_t>{~std::uint64_t(0), 7});
  expect_same_csr(U, gbcuda::deserialize<std::uint64_t>(gbcuda::serialize(U)));

  const auto D = gbcuda::Matrix<double>::from_coo(2, 2, r, c, std::vector<double>{1000.5, -7.9});
  EXPECT_EQ(gbcuda::deserialize<std::int8_t>(gbcuda::serialize(D)).csr().values.to_vector(),
            (std::vector<std::int8_t>{127, -7}));
  const auto S = gbcuda::Matrix<std::int16_t>::from_coo(2, 2, r, c, std::vector<std::int16_t>{-1, 258});
  EXPECT_EQ(gbcuda::deserialize<std::uint8_t>(gbcuda::serialize(S)).csr().values.to_vector(),
            (std::vector<std::uint8_t>{255, 2}));
  const auto T8 = gbcuda::read_matrix<std::uint8_t>(
      write("t8.mtx", "%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 1 300\n1 2 -5\n"));
  EXPECT_EQ(T8.csr().values.to_vector(), (std::vector<std::uint8_t>{255, 0}));
}

TEST_F(IoTest, FailedWriteLeavesNoFile) {
  std::vector<Index> r{0}, c{1};
  const auto A = gbcuda::Matrix<bool>::from_coo(2, 2, r, c);
  // A path in a missing directory.
  const std::string missing = (dir_ / "no_such_dir" / "a.mtx").string();
  try {
    gbcuda::write_matrix_market(missing, A);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::IoError);
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dir_entries().empty());

  // A directory that cannot be written: chmod works for normal users; root bypasses it, so
  // then use a directory no one can create files in.
  std::string target;
  if (::geteuid() != 0) {
    const fs::path ro = dir_ / "readonly";
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    target = (ro / "a.mtx").string();
  } else {
    target = "/proc/gbcuda_test_io.mtx";
  }
  EXPECT_THROW(
      {
        try {
          gbcuda::write_matrix_market(target, A);
        } catch (const Error& e) {
          EXPECT_EQ(e.status(), Status::IoError);
          EXPECT_NE(std::string(e.what()).find(target), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
  EXPECT_FALSE(fs::exists(target));
  if (::geteuid() != 0) {
    EXPECT_TRUE(fs::is_empty(dir_ / "readonly"));
  }

  // A fill that throws halfway: neither the file nor the temporary remains, and an existing
  // file is left untouched.
  const std::string p = write("keep.txt", "old");
  EXPECT_THROW(gbcuda::write_file_atomically(p,
                                             [](std::ostream& os) {
                                               os << "partial";
                                               throw std::runtime_error("boom");
                                             }),
               std::runtime_error);
  std::ifstream in(p);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "old");
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"keep.txt"});
}

// ---- where write_file_atomically writes: symlinks, FIFOs, devices ------------------------

// The whole content of a file.
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A fill writing `text`.
std::function<void(std::ostream&)> writes(const std::string& text) {
  return [text](std::ostream& os) { os << text; };
}

mode_t lstat_type(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & S_IFMT;
}

TEST_F(IoTest, SymlinkToRegularFileStaysALink) {
  const std::string real = write("real.txt", "old");
  const std::string link = (dir_ / "link.txt").string();
  const std::string link2 = (dir_ / "link2.txt").string();
  fs::create_symlink("real.txt", link);  // relative, as ln -s makes it
  fs::create_symlink(link, link2);       // and a chain of two
  for (const std::string& path : {link, link2}) {
    SCOPED_TRACE(path);
    const gbcuda::OutputTarget t = gbcuda::check_output_path(path);
    EXPECT_EQ(t.kind, gbcuda::OutputTarget::Kind::Replace);
    EXPECT_TRUE(fs::equivalent(t.file, real)) << t.file;
    gbcuda::write_file_atomically(path, writes("new via " + path));
    EXPECT_EQ(lstat_type(link), S_IFLNK);
    EXPECT_EQ(lstat_type(link2), S_IFLNK);
    EXPECT_EQ(fs::read_symlink(link), "real.txt");
    EXPECT_EQ(slurp(real), "new via " + path);
  }
  // A dangling link: the file is made where it points, and the link stays.
  const std::string dangling = (dir_ / "dangling.txt").string();
  fs::create_symlink("made.txt", dangling);
  EXPECT_EQ(gbcuda::check_output_path(dangling).kind, gbcuda::OutputTarget::Kind::Create);
  gbcuda::write_file_atomically(dangling, writes("made"));
  EXPECT_EQ(lstat_type(dangling), S_IFLNK);
  EXPECT_EQ(slurp((dir_ / "made.txt").string()), "made");
  // Nothing else: no temporary left beside any of them.
  std::vector<std::string> names = dir_entries();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"dangling.txt", "link.txt", "link2.txt", "made.txt", "real.txt"}));
}

TEST_F(IoTest, FifoIsWrittenThrough) {
  const std::string fifo = (dir_ / "out.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(gbcuda::check_output_path(fifo).kind, gbcuda::OutputTarget::Kind::WriteThrough);  // did not wait
  std::string text;
  for (int i = 0; i < 100000; ++i) text += std::to_string(i) + '\n';  // more than a pipe holds
  ASSERT_GT(text.size(), std::size_t(1) << 17);
  // The reader opens without waiting for a writer and gives up after 30 s, so that a writer
  // that never opens the FIFO (one that replaced it) fails the test instead of hanging it.
  std::string got;
  std::thread reader([&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::vector<char> buf(std::size_t(1) << 16);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const ssize_t r = ::read(fd, buf.data(), buf.size());
      if (r > 0) got.append(buf.data(), static_cast<std::size_t>(r));
      else if (r == 0 && !got.empty()) break;  // the writer closed
      else std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::close(fd);
  });
  try {
    gbcuda::write_file_atomically(fifo, writes(text));
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  reader.join();
  EXPECT_EQ(got.size(), text.size());
  EXPECT_TRUE(got == text);
  EXPECT_EQ(lstat_type(fifo), S_IFIFO);
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"out.fifo"});
}

// The null and full devices to write: as root, nodes of their own made in the test directory, so
// that a writer that replaces what it writes (the bug this guards against) cannot replace the
// system's /dev/null; otherwise /dev/null and /dev/full themselves, which only root could replace.
// Empty when there is no such device.
std::string device_node(const fs::path& dir, const char* name, unsigned minor) {
  const std::string system = std::string("/dev/") + name;
  if (::geteuid() != 0) return ::access(system.c_str(), W_OK) == 0 ? system : "";
  const std::string own = (dir / name).string();
  return ::mknod(own.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0 ? own : "";
}

TEST_F(IoTest, CharacterDevicesAreWrittenThrough) {
  const std::string null = device_node(dir_, "null", 3);
  if (null.empty()) GTEST_SKIP() << "no null device to write";
  EXPECT_EQ(gbcuda::check_output_path(null).kind, gbcuda::OutputTarget::Kind::WriteThrough);
  gbcuda::write_file_atomically(null, writes("discarded"));
  EXPECT_EQ(lstat_type(null), S_IFCHR);
  // Through a symlink: the link stays, nothing appears beside it.
  const std::string link = (dir_ / "null-link").string();
  fs::create_symlink(null, link);
  gbcuda::write_file_atomically(link, writes("discarded"));
  EXPECT_EQ(lstat_type(link), S_IFLNK);
  EXPECT_EQ(lstat_type(null), S_IFCHR);
  // A device that fails every write (the full device): the error names the path and the reason.
  const std::string full = device_node(dir_, "full", 7);
  if (!full.empty()) {
    try {
      gbcuda::write_file_atomically(full, writes(std::string(1 << 17, 'x')));
      ADD_FAILURE() << "writing " << full << " did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::IoError);
      EXPECT_NE(std::string(e.what()).find(full), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::strerror(ENOSPC)), std::string::npos) << e.what();
    }
    EXPECT_EQ(lstat_type(full), S_IFCHR);
  }
  std::vector<std::string> names = dir_entries();
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected = {"null-link"};
  for (const std::string& node : {null, full})
    if (fs::path(node).parent_path() == dir_) expected.push_back(fs::path(node).filename().string());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names, expected);
}

TEST_F(IoTest, WriteErrorLeavesTheOldFile) {
  // A real write() failure: a file size limit makes writes past it fail with EFBIG.
  const std::string keep = write("keep.txt", "old");
  const std::string link = (dir_ / "link.txt").string();
  fs::create_symlink("keep.txt", link);
  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  for (const std::string& path : {keep, link}) {
    try {
      gbcuda::write_file_atomically(path, writes(std::string(1 << 20, 'x')));
      ADD_FAILURE() << "writing past the size limit did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::IoError);
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::strerror(EFBIG)), std::string::npos) << e.what();
    }
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(slurp(keep), "old");
  EXPECT_EQ(lstat_type(link), S_IFLNK);
  std::vector<std::string> names = dir_entries();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"keep.txt", "link.txt"}));
}

TEST_F(IoTest, CheckOutputPathRefusesAndCreatesNothing) {
  auto refused = [&](const std::string& path, const std::string& why) {
    SCOPED_TRACE(path);
    try {
      gbcuda::check_output_path(path);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::IoError);
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused((dir_ / "no-such-dir" / "x.txt").string(), "no directory " + (dir_ / "no-such-dir").string());
  refused(dir_.string(), std::strerror(EISDIR));
  const std::string file = write("file.txt", "x");
  refused(file + "/x.txt", std::strerror(ENOTDIR));
  fs::create_symlink(dir_ / "loop-b", dir_ / "loop-a");
  fs::create_symlink(dir_ / "loop-a", dir_ / "loop-b");
  refused((dir_ / "loop-a").string(), std::strerror(ELOOP));
  refused("", "empty name");
  const gbcuda::OutputTarget fresh = gbcuda::check_output_path((dir_ / "new.txt").string());
  EXPECT_EQ(fresh.kind, gbcuda::OutputTarget::Kind::Create);
  EXPECT_EQ(fresh.file, (dir_ / "new.txt").string());
  EXPECT_EQ(gbcuda::check_output_path(file).kind, gbcuda::OutputTarget::Kind::Replace);
  EXPECT_EQ(gbcuda::check_output_path("/dev/stdout").kind, gbcuda::OutputTarget::Kind::WriteThrough);
  EXPECT_EQ(gbcuda::check_output_path("/proc/self/fd/2").kind, gbcuda::OutputTarget::Kind::WriteThrough);
  std::vector<std::string> names = dir_entries();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"file.txt", "loop-a", "loop-b"}));
}

// ---- large files, parsed in parallel chunks ------------------------------------------------

TEST_F(IoTest, LargeFileParallel) {
  const Index n = 100000, nnz = 500000;
  std::string text = "%%MatrixMarket matrix coordinate real general\n% generated\n";
  text += std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(nnz) + "\n";
  std::vector<Triplet> expected;
  expected.reserve(nnz);
  for (Index k = 0; k < nnz; ++k) {
    const Index i = (k * 7919) % n, j = (k * 104729 + 13) % n;
    const double v = static_cast<double>(k % 1000) - 500.25;
    expected.push_back({i, j, v});
    text += std::to_string(i + 1) + " " + std::to_string(j + 1) + " " + std::to_string(v) + "\n";
    if (k % 100000 == 50000) text += "% a comment in the middle\n\n";
  }
  const std::string path = write("large.mtx", text);
  ASSERT_GT(text.size(), std::size_t(8) << 20);  // several 1 MiB chunks

  const int saved = omp_get_max_threads();
  for (int threads : {1, 4}) {
    SCOPED_TRACE(threads);
    omp_set_num_threads(threads);
    const auto c = read(path);
    EXPECT_EQ(c.stored_entries, nnz);
    ASSERT_EQ(Index(c.rows.size()), nnz);
    EXPECT_TRUE(triplets(c) == expected);
  }

  // An error deep in the file names its exact line (a later chunk).
  const Index bad_entry = 420000;
  std::string broken = text;
  std::size_t pos = 0;
  // Line of entry k: 3 header lines + k + 1, plus 2 per inserted comment block before it.
  Index line = 3 + bad_entry + 1;
  for (Index k = 0; k < bad_entry; ++k)
    if (k % 100000 == 50000) line += 2;
  for (Index l = 1; l < line; ++l) pos = broken.find('\n', pos) + 1;
  broken.insert(pos, "1 1 oops\n");  // becomes the bad line
  const std::string bpath = write("broken.mtx", broken);
  omp_set_num_threads(4);
  expect_parse_error(bpath, line, "'oops' is not a number");
  omp_set_num_threads(saved);

  // Progress, when forced, is one updating line ending at 100%.
  ReadOptions o;
  o.progress = ReadOptions::Progress::Always;
  ::testing::internal::CaptureStderr();
  const auto c = gbcuda::read_coo(path, o);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(c.stored_entries, nnz);
  EXPECT_NE(err.find("reading " + path + ": "), std::string::npos) << err;
  EXPECT_NE(err.find("100%"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(IoTest, LargeEdgeListParallel) {
  const Index m = 500000;
  std::string text = "# generated edge list\n";
  std::vector<Triplet> expected;
  Index maxid = 0;
  for (Index k = 0; k < m; ++k) {
    const Index s = (k * 31) % 250007, d = (k * 17 + 5) % 300007;
    maxid = std::max({maxid, s, d});
    expected.push_back({s, d, 1});
    text += std::to_string(s) + (k % 2 ? "\t" : ",") + std::to_string(d) + "\n";
  }
  const std::string path = write("large_edges.txt", text);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(4);
  const auto c = read(path);
  omp_set_num_threads(saved);
  EXPECT_EQ(c.format, FileFormat::EdgeList);
  EXPECT_EQ(c.nrows, maxid + 1);
  EXPECT_EQ(c.stored_entries, m);
  EXPECT_TRUE(triplets(c) == expected);
}

}  // namespace
