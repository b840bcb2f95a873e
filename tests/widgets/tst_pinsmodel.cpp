// PinsModel and AlignmentModel under QAbstractItemModelTester, on real analyses of seed000
// and of copies edited to carry the marks (another pin, a short revision, a fetcher without
// a hash); MatrixModel's PinsRole, which the grid's colour-by-pin mode reads.

#include "../recipes/testrepository.h"
#include "analysis/analyzer.h"
#include "itemmodels/alignmentmodel.h"
#include "itemmodels/matrixmodel.h"
#include "itemmodels/pinsmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace rg;
using namespace rg::test;

namespace {

const QByteArray oldPin = "6a030d535719c5190187c4cec156f335e95e3211";
const QByteArray newPin = "0182a361324364ae3f436a63005877674cf45efb";
const QString seed000 = QStringLiteral(RG_FIXTURES_DIR "/seed000");

std::shared_ptr<const Analysis> analyse(const QString& root)
{
    auto source = openWorkTree(root.toStdString());
    return std::make_shared<Analysis>(Analyzer().analyze(*source));
}

std::shared_ptr<const PinInventory> inventoryOf(const QString& root)
{
    return std::make_shared<const PinInventory>(PinInventory::of(*analyse(root)));
}

QByteArray read(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString recipe(const char* variant)
{
    return QStringLiteral(".flox/pkgs/%1.nix").arg(QLatin1String(variant));
}

void edit(const TestRepository& repo, const char* variant, const QByteArray& from,
          const QByteArray& to)
{
    QByteArray bytes = read(repo.root() + QLatin1Char('/') + recipe(variant));
    QVERIFY2(bytes.contains(from), variant);
    repo.write(recipe(variant), bytes.replace(from, to));
}

QModelIndex child(const QAbstractItemModel& model, const QModelIndex& parent, const QString& name)
{
    for (int r = 0; r < model.rowCount(parent); ++r)
        if (model.index(r, 0, parent).data().toString() == name)
            return model.index(r, 0, parent);
    return {};
}

QModelIndex sm90(const MatrixModel& model)
{
    for (int r = 0; r < model.rowCount(); ++r)
        for (int c = 0; c < model.columnCount(); ++c)
            if (model.rowId(r) == "sm90" && model.columnId(c) == "avx512")
                return model.index(r, c);
    return {};
}

} // namespace

class TestPinsModel : public QObject
{
    Q_OBJECT
private slots:
    void seed000HasOnePinDifferingFromTheSpec()
    {
        PinsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setInventory(inventoryOf(seed000));
        // pytorch × CUDA 12.9, CPU-only, Darwin.
        QCOMPARE(model.rowCount(), 3);
        int recipes = 0;
        for (int g = 0; g < model.rowCount(); ++g) {
            const QModelIndex group = model.index(g, 0);
            QCOMPARE(group.data(PinsModel::KindRole).toInt(), int(PinsModel::Kind::Group));
            QCOMPARE(model.rowCount(group), 1);
            const QModelIndex pin = model.index(0, 0, group);
            QCOMPARE(pin.data().toString(), QStringLiteral("6a030d5"));
            QCOMPARE(pin.data(PinsModel::RevisionRole).toByteArray(), oldPin);
            QCOMPARE(pin.data(PinsModel::LegendIndexRole).toInt(), 0);
            const int marks = pin.data(PinsModel::MarksRole).toInt();
            QCOMPARE(marks, int(PinsModel::DiffersFromSpec)); // hashes pinned, full, dominant
            QVERIFY2(model.index(0, PinsModel::NotesColumn, group)
                         .data()
                         .toString()
                         .contains(QStringLiteral("differs from the spec (0182a36)")),
                     qPrintable(model.index(0, PinsModel::NotesColumn, group).data().toString()));
            const int count = model.index(0, PinsModel::RecipesColumn, group).data().toInt();
            QCOMPARE(model.rowCount(pin), count);
            const QModelIndex first = model.index(0, 0, pin);
            QCOMPARE(first.data(PinsModel::KindRole).toInt(), int(PinsModel::Kind::Recipe));
            QVERIFY(first.data(PinsModel::PathRole)
                        .toString()
                        .startsWith(QStringLiteral(".flox/pkgs/")));
            QVERIFY(first.data(PinsModel::LineRole).toInt() > 0);
            QCOMPARE(model.parent(first), pin.siblingAtColumn(0));
            recipes += count;
        }
        QCOMPARE(recipes, 66);
        QVERIFY2(model.summaryText().contains(QStringLiteral("66 differ")),
                 qPrintable(model.summaryText()));
        QCOMPARE(model.indexOfPin(QString::fromLatin1(oldPin)).data(PinsModel::RevisionRole),
                 QVariant(QString::fromLatin1(oldPin)));
        QVERIFY(!model.indexOfPin(QString::fromLatin1(newPin)).isValid());
    }

    void marksOtherPinsShortRevisionsAndMissingHashes()
    {
        TestRepository repo;
        repo.copyFrom(seed000);
        edit(repo, "pytorch-python313-cuda12_9-sm80-avx512", oldPin, newPin);
        edit(repo, "pytorch-python313-cuda12_9-sm86-avx512", oldPin, oldPin.left(7));
        QByteArray bytes =
            read(repo.root() + QLatin1Char('/') + recipe("pytorch-python313-cuda12_9-sm89-avx512"));
        const qsizetype sha = bytes.indexOf("sha256 = ");
        QVERIFY(sha > 0);
        bytes.remove(sha, bytes.indexOf('\n', sha) - sha + 1);
        repo.write(recipe("pytorch-python313-cuda12_9-sm89-avx512"), bytes);

        PinsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setInventory(inventoryOf(repo.root()));
        const QModelIndex cuda = child(model, {}, QStringLiteral("pytorch \u00b7 CUDA 12.9"));
        QVERIFY(cuda.isValid());
        QCOMPARE(model.rowCount(cuda), 3);
        const QModelIndex dominant = child(model, cuda, QStringLiteral("6a030d5"));
        const QModelIndex other = child(model, cuda, QStringLiteral("0182a36"));
        const QModelIndex shortened = model.indexOfPin(QStringLiteral("6a030d5"));
        QVERIFY(dominant.isValid() && other.isValid() && shortened.isValid());
        QVERIFY(shortened != dominant);
        QCOMPARE(dominant.row(), 0); // most used first
        QCOMPARE(dominant.data(PinsModel::MarksRole).toInt(),
                 int(PinsModel::DiffersFromSpec | PinsModel::WithoutHash));
        QVERIFY(model.index(0, PinsModel::NotesColumn, cuda)
                    .data()
                    .toString()
                    .contains(QStringLiteral("1 fetcher without a hash")));
        // The spec's own pin is only off the group's.
        QCOMPARE(other.data(PinsModel::MarksRole).toInt(), int(PinsModel::DiffersFromGroup));
        QCOMPARE(shortened.data(PinsModel::MarksRole).toInt() & PinsModel::NotFullRevision,
                 int(PinsModel::NotFullRevision));
        QVERIFY(model.index(shortened.row(), PinsModel::NotesColumn, cuda)
                    .data()
                    .toString()
                    .contains(QStringLiteral("short revision")));
        bool flagged = false;
        for (int r = 0; r < model.rowCount(dominant); ++r) {
            const QModelIndex use = model.index(r, 0, dominant);
            if (use.data(PinsModel::VariantRole).toString() ==
                QLatin1String("pytorch-python313-cuda12_9-sm89-avx512")) {
                flagged = use.data(PinsModel::MarksRole).toInt() == PinsModel::WithoutHash;
                QCOMPARE(model.index(r, PinsModel::NotesColumn, dominant).data().toString(),
                         QStringLiteral("fetcher pins no hash"));
            }
        }
        QVERIFY(flagged);
        // A new inventory resets the tree.
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setInventory(nullptr);
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), 0);
    }

    void matrixModelGivesPinsOnlyWhileColouring()
    {
        const auto analysis = analyse(seed000);
        const auto inventory = std::make_shared<const PinInventory>(PinInventory::of(*analysis));
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(analysis);
        model.setSlices(MatrixSlice::slicesOf(*analysis));
        const QModelIndex cell = sm90(model);
        QVERIFY(cell.isValid());
        QVERIFY(cell.data(MatrixModel::PinsRole).toList().isEmpty());
        QVERIFY(!model.coloursByPin());

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setPinProvider([inventory](const Cell& entry) {
            CellPin pin;
            pin.index = inventory->legendIndexOfCell(entry.id.toKey());
            pin.label = QStringLiteral("short");
            return pin;
        });
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.front().at(2).value<QList<int>>(), QList<int>{MatrixModel::PinsRole});
        QVERIFY(model.coloursByPin());
        const QVariantList pins = cell.data(MatrixModel::PinsRole).toList();
        QCOMPARE(pins.size(), cell.data(MatrixModel::StatusesRole).toList().size());
        QCOMPARE(pins.front().toMap().value(QStringLiteral("index")).toInt(), 0);
        QCOMPARE(pins.front().toMap().value(QStringLiteral("label")).toString(),
                 QStringLiteral("short"));
        model.setPinProvider({});
        QVERIFY(cell.data(MatrixModel::PinsRole).toList().isEmpty());
    }

    void alignmentShowsTheMismatchAndUnreadableColumns()
    {
        TestRepository mine, theirs;
        mine.copyFrom(seed000);
        mine.git({QStringLiteral("init"), QStringLiteral("-q")});
        mine.commitAll(QStringLiteral("seed"));
        theirs.copyFrom(seed000);
        // The other side moved its CUDA recipes only: one mismatching row.
        for (const QString& file : QDir(theirs.root() + QStringLiteral("/.flox/pkgs"))
                                       .entryList({QStringLiteral("*cuda12_9*.nix")}))
            edit(theirs, file.chopped(4).toLatin1().constData(), oldPin, newPin);
        theirs.git({QStringLiteral("init"), QStringLiteral("-q")});
        theirs.commitAll(QStringLiteral("other side"));
        QTemporaryDir plain;

        const PinAlignment alignment =
            PinAlignment::compute({{mine.rootPath(), "", "mine"},
                                   {theirs.rootPath(), "main", "theirs"},
                                   {plain.path().toStdString(), "", "plain"}});
        AlignmentModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAlignment(std::make_shared<const PinAlignment>(alignment));
        QCOMPARE(model.columnCount(), 4);
        QCOMPARE(model.rowCount(), 3); // CPU-only, CUDA 12.9, Darwin of pytorch 3.13
        QCOMPARE(model.mismatchCount(), 1);
        QCOMPARE(model.columnErrors().size(), 1);
        QVERIFY2(model.columnErrors().front().startsWith(QStringLiteral("plain: ")),
                 qPrintable(model.columnErrors().front()));
        QVERIFY(model.headerData(3, Qt::Horizontal)
                    .toString()
                    .contains(QStringLiteral("not readable")));

        int mismatch = -1;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.index(r, 0).data(AlignmentModel::MismatchRole).toBool())
                mismatch = r;
        QVERIFY(mismatch >= 0);
        QVERIFY(model.index(mismatch, 0).data().toString().contains(QStringLiteral("CUDA 12.9")));
        const QModelIndex home = model.index(mismatch, AlignmentModel::modelColumn(0));
        const QModelIndex other = model.index(mismatch, AlignmentModel::modelColumn(1));
        QCOMPARE(home.data().toString(), QStringLiteral("6a030d5"));
        QCOMPARE(other.data().toString(), QStringLiteral("0182a36"));
        QCOMPARE(home.data(AlignmentModel::PinIndexRole).toInt(), 0);
        QVERIFY(!other.data(AlignmentModel::CanAlignRole).toBool()); // no home column yet
        model.setHomeColumn(0);
        QVERIFY(other.data(AlignmentModel::CanAlignRole).toBool());
        QVERIFY(!home.data(AlignmentModel::CanAlignRole).toBool());
        const QModelIndex aligned = model.index(mismatch == 0 ? 1 : 0, 2);
        QVERIFY(!aligned.data(AlignmentModel::CanAlignRole).toBool());
        QCOMPARE(
            model.index(mismatch, 3).data(AlignmentModel::ColumnErrorRole).toString().isEmpty(),
            false);
    }
};

QTEST_GUILESS_MAIN(TestPinsModel)
#include "tst_pinsmodel.moc"
