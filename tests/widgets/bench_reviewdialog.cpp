// How long the change set review takes to open on a "complete the matrix" change set:
//   BM_ReviewDialogOpen/250   the dialog built for 250 created recipes, shown and painted
// Target: < 1 s, as the window's own first paint of a 250-recipe repository.
// Run: QT_QPA_PLATFORM=offscreen ./bench_reviewdialog

#include "../benchsupport.h"
#include "changesetreviewdialog.h"
#include "reviewfixture.h"

#include <QApplication>
#include <QTest>
#include <QTreeWidget>
#include <benchmark/benchmark.h>

using namespace rg;

namespace {

void BM_ReviewDialogOpen(benchmark::State& state)
{
    const int count = int(state.range(0));
    const test::Review r = test::reviewOf(test::largeCompletion(count));
    for (auto _ : state) {
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        dialog.show();
        if (!QTest::qWaitForWindowExposed(&dialog)) {
            rg::bench::fail(state, "the review dialog was never exposed");
            return;
        }
        QCoreApplication::processEvents();
        if (dialog.operationsView()->topLevelItemCount() != count) {
            rg::bench::fail(state, "the review dialog does not list every operation");
            return;
        }
    }
}
BENCHMARK(BM_ReviewDialogOpen)->Arg(250)->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    return rg::bench::runAll(argc, argv);
}
