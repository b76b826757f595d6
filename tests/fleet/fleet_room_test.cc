// The fleet room alone (passtiming::fleet): the identity of a merged
// profile's rows, the secrets no message shows, a Pusher's refusals
// without a server, and the names and addresses of claims. tests/fleet/test_*.py run it against
// real servers.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "browser/sample_profiles.h"
#include "fleet/closed_port.h"
#include "passtiming/fleet/claims.h"
#include "passtiming/fleet/clickhouse_http.h"
#include "passtiming/fleet/push.h"
#include "passtiming/formats/fleet.h"

namespace passtiming {
namespace {

using ::passtiming::testing::closed_port;
using ::passtiming::testing::pipeline_profile;

std::string rows_of(const Profile& profile, const std::vector<FleetRun>& runs) {
  std::string text;
  write_rows(profile, runs, [&](std::string_view piece) { text += piece; });
  return text;
}

/// `a` and `b` merged as `passtiming merge a b` makes them: every section
/// with its input's origin, under the merging process's metadata.
Profile merged(const Profile& a, const Profile& b) {
  Profile m;
  m.metadata = a.metadata;
  m.metadata.host = "merging-host";
  m.metadata.pid = 99;
  for (const Profile* input : {&a, &b}) {
    for (Section section : input->sections) {
      section.origin = {"input.json", input->metadata};
      m.sections.push_back(std::move(section));
    }
  }
  return m;
}

TEST(FleetRunsTest, AProfileAsRecordedIsOneRun) {
  const Profile profile = pipeline_profile();
  const auto runs = fleet_runs(profile, {});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].identity.run_id, run_identity(profile.metadata, {}).run_id);
  ASSERT_EQ(runs[0].sections.size(), profile.sections.size());
  for (std::size_t s = 0; s < profile.sections.size(); ++s) {
    EXPECT_EQ(runs[0].sections[s].index, s);
    EXPECT_EQ(runs[0].sections[s].number, s);
  }
  std::string expected;
  write_rows(profile, run_identity(profile.metadata, {}),
             [&](std::string_view piece) { expected += piece; });
  EXPECT_EQ(rows_of(profile, runs), expected);
}

TEST(FleetRunsTest, AMergedProfilesRowsAreItsInputsRows) {
  const Profile a = pipeline_profile();
  Profile b = pipeline_profile();
  b.metadata.host = "other-host";
  b.metadata.pid = 7;
  const Profile m = merged(a, b);
  const MetaPairs meta{{"commit", "c0ffee"}};
  const auto runs = fleet_runs(m, meta);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].identity.run_id, run_identity(a.metadata, meta).run_id);
  EXPECT_EQ(runs[1].identity.run_id, run_identity(b.metadata, meta).run_id);
  EXPECT_EQ(runs[1].identity.host, "other-host");
  EXPECT_EQ(runs[1].sections.front().index, a.sections.size());
  EXPECT_EQ(runs[1].sections.front().number, 0u);
  // The very rows of the inputs, byte for byte.
  EXPECT_EQ(rows_of(m, runs), rows_of(a, fleet_runs(a, meta)) + rows_of(b, fleet_runs(b, meta)));
  // `run_id=` names one run: the merge's, sections by their index.
  const auto one = fleet_runs(m, {{"run_id", "r"}});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].sections.back().number, m.sections.size() - 1);
}

TEST(FleetRunsTest, CheckRowsNamesTheFileSectionAndSequence) {
  Profile profile = pipeline_profile();
  EXPECT_NO_THROW(check_rows(profile, "p.json"));
  profile.sections[1].records[0].sequence = profile.sections[1].records[1].sequence;
  try {
    check_rows(profile, "p.json");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("p.json: section 1: two records with sequence"),
              std::string::npos)
        << e.what();
  }
}

TEST(FleetSecretsTest, EverySecretOfTheUrlIsScrubbed) {
  const std::string url = "http://pusher:p%40ss@h:8123/?password=hunter2&token=t%2Bk&database=d";
  const auto secrets = fleet::url_secrets(url);
  const std::string text =
      "Code: 193, Wrong password p@ss (p%40ss) for hunter2 t+k t%2Bk in database d";
  const std::string shown = fleet::scrubbed(text, secrets);
  for (const char* secret : {"p@ss", "p%40ss", "hunter2", "t+k", "t%2Bk"}) {
    EXPECT_EQ(shown.find(secret), std::string::npos) << secret << ": " << shown;
  }
  EXPECT_NE(shown.find("database d"), std::string::npos) << shown;
  EXPECT_TRUE(fleet::url_secrets("http://127.0.0.1:8123/?database=x").empty());
}

TEST(FleetPusherTest, RefusesABadUrlOrTableWithoutShowingASecret) {
  fleet::PushSettings settings;
  settings.urls = {"ftp://u:s3cr3t@h/"};
  try {
    fleet::Pusher pusher(settings);
    FAIL() << "no error";
  } catch (const fleet::PushRefused& e) {
    EXPECT_EQ(std::string(e.what()).find("s3cr3t"), std::string::npos) << e.what();
  }
  settings.urls = {"http://127.0.0.1:1/"};
  settings.table = "t; DROP TABLE t";
  EXPECT_THROW(fleet::Pusher{settings}, fleet::PushRefused);
}

TEST(FleetPusherTest, AServerAwayStopsThePushAfterItsRetries) {
  const std::string port = std::to_string(closed_port());
  fleet::PushSettings settings;
  settings.urls = {"http://u:s3cr3t@127.0.0.1:" + port + "/?password=hunter2",
                   "http://127.0.0.1:" + port + "/"};
  settings.retries = 1;
  std::vector<std::string> notes;
  settings.note = [&](std::string_view line) { notes.emplace_back(line); };
  fleet::Pusher pusher(settings);
  try {
    pusher.prepare();
    FAIL() << "no error";
  } catch (const fleet::PushStopped& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gave up after 1 retry"), std::string::npos) << what;
    EXPECT_EQ(what.find("s3cr3t"), std::string::npos) << what;
    EXPECT_EQ(what.find("hunter2"), std::string::npos) << what;
  }
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("on the next server"), std::string::npos) << notes[0];
  EXPECT_FALSE(pusher.stored_anything());
  EXPECT_EQ(pusher.progress(2), "stored 0 of 2 profiles, 0 rows");
}

TEST(Claims, NodeNamesKeepRunIdsApartAndInOnePathStep) {
  EXPECT_EQ(fleet::claim_node_name("90cc290bdf77c9c7"), "90cc290bdf77c9c7");
  EXPECT_EQ(fleet::claim_node_name("ci/run 7"), "ci%2Frun%207");
  EXPECT_EQ(fleet::claim_node_name(".."), "%2E%2E");
  EXPECT_EQ(fleet::claim_node_name("a%2F"), "a%252F");  // not "a/"'s name
  EXPECT_EQ(fleet::claim_node_name(""), "%");
}

TEST(Claims, AddressesShowNoUserInformation) {
  EXPECT_EQ(fleet::shown_zookeeper_address("zk1:2181,zk2:2181/fleet"), "zk1:2181,zk2:2181/fleet");
  EXPECT_EQ(fleet::shown_zookeeper_address("me:pw@zk1:2181,zk2:2181"), "zk1:2181,zk2:2181");
  EXPECT_EQ(fleet::shown_zookeeper_address("zk1:2181,me:pw@zk2:2181/a@b"), "zk1:2181,zk2:2181/a@b");
}

TEST(Claims, ZooKeeperAwayIsAClaimsError) {
  // Without the client (a build without libzookeeper-mt-dev) the error
  // says so instead.
  const std::string address = "127.0.0.1:" + std::to_string(closed_port());
  const std::string expected = fleet::Claims::available()
                                   ? "ZooKeeper at " + address + " did not answer within 0.5 s"
                                   : "built without ZooKeeper's C client";
  try {
    fleet::Claims claims(address, "/passtiming/claims/db.t", 2, 0.5);
    FAIL() << "connected to nothing";
  } catch (const fleet::ClaimsError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace passtiming
