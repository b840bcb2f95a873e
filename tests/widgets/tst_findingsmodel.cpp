#include "itemmodels/findingsmodel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace rg;

class TestFindingsModel : public QObject
{
    Q_OBJECT
private slots:
    void rowsAndRoles()
    {
        FindingsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        Finding pin;
        pin.ruleId = "pin-mismatch";
        pin.severity = Severity::Error;
        pin.message = "nixpkgs pin fe5e41d differs";
        pin.file = ".flox/pkgs/a.nix";
        pin.range = {120, 160};
        pin.line = 6;
        pin.column = 53;
        pin.fix = FixKind::ReplacePin;
        Finding overlay;
        overlay.ruleId = "missing-overlay";
        overlay.severity = Severity::Warning;
        overlay.message = "missing overlays";
        overlay.file = ".flox/pkgs/a.nix";
        model.setFindings({pin, overlay});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(FindingsModel::ColumnCount));
        const QModelIndex first = model.index(0, FindingsModel::LocationColumn);
        QCOMPARE(first.data().toString(), QStringLiteral("6:53"));
        QCOMPARE(model.index(1, FindingsModel::LocationColumn).data().toString(),
                 QStringLiteral("file"));
        QCOMPARE(first.data(FindingsModel::RangeBeginRole).toInt(), 120);
        QCOMPARE(first.data(FindingsModel::RangeEndRole).toInt(), 160);
        QCOMPARE(first.data(FindingsModel::FixRole).toString(), QStringLiteral("replace-pin"));
        QVERIFY(first.data(Qt::ToolTipRole).toString().startsWith(".flox/pkgs/a.nix:6:53"));
        QCOMPARE(model.index(1, FindingsModel::SeverityColumn).data().toString(),
                 QStringLiteral("warning"));
        QCOMPARE(model.finding(model.index(1, 0))->ruleId, std::string("missing-overlay"));

        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setFilterKeyColumn(FindingsModel::RuleColumn);
        proxy.setFilterFixedString(QStringLiteral("overlay"));
        QCOMPARE(proxy.rowCount(), 1);
        model.setFindings({});
        QCOMPARE(proxy.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFindingsModel)
#include "tst_findingsmodel.moc"
