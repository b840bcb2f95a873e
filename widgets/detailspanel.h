#pragma once

// The selected cell(s) in words: which recipe, its status and reason, the facts RecipeGrid
// read from it (each a link to its place in the preview) and its findings. With several
// recipes in the selection a chooser picks the one shown.

#include "analysis/analysis.h"

#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTextBrowser;
class QTreeView;

namespace rg {

class FindingsModel;

class DetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);

    // `entries` point into `analysis`, which the panel keeps alive while it shows them.
    // `emptyReason`: why a cell without entries is empty ("… impossible — …"); "" for a cell
    // the spec simply does not ask for.
    void setEntries(std::shared_ptr<const Analysis> analysis, std::vector<const Cell*> entries,
                    const QString& cellTitle, const QString& emptyReason = {});
    void clear(const QString& message = {});
    // Keeps the chosen recipe when the same variant is still among the entries.
    bool selectVariant(const QString& variantName);

    // One line on the shown recipe's builds ("succeeded in 4m 05s, verified", "built from an
    // older version: …"), "" for none; the window supplies it from the build state.
    using BuildSummaryProvider = std::function<QString(const Cell& entry)>;
    void setBuildSummaryProvider(BuildSummaryProvider provider);
    // The provider's answer for `variantName` changed: shows it if that recipe is shown.
    void buildStateChanged(const QString& variantName);

    const Cell* currentEntry() const;
    QString currentVariantName() const;
    QTreeView* findingsView() const { return m_findings; }
    FindingsModel* findingsModel() const { return m_findingsModel; }
    QString factsText() const;      // the facts as plain text (for tests and copy)
    QString evaluationText() const; // Nix's answer as plain text; "" when not evaluated

signals:
    void currentEntryChanged(const rg::Cell* entry);
    void findingActivated(const rg::Finding& finding);
    void rangeActivated(uint32_t begin, uint32_t end);

private:
    class FactRows;

    void setUpFindingsView();
    void connectSignals();
    void showEntry(int index);
    QString statusText(const Cell& entry) const;
    void addRecipeRows(FactRows& row, const RecipeFacts& facts) const;
    void addValueRows(FactRows& row, const RecipeFacts& facts) const;
    void addGroupRows(FactRows& row, const RecipeFacts& facts) const;
    void showBuild(const Cell* entry);
    void showEvaluation(const Cell* entry);
    void activateFinding(const QModelIndex& index);

    BuildSummaryProvider m_buildSummary;
    std::shared_ptr<const Analysis> m_analysis;
    std::vector<const Cell*> m_entries;
    QLabel* m_title;
    QComboBox* m_chooser;
    QLabel* m_status;
    QLabel* m_build;
    QLabel* m_evaluation;      // Nix's answer in a line; its values head the facts
    QString m_evaluationTable; // HTML, "" when the shown recipe was not evaluated
    // A browser, not a label: a word-wrapped rich-text label lays its table out once for every
    // size hint its scroll area asks for, which on a large repository's first paint held the
    // GUI thread past a user's notice.
    QTextBrowser* m_facts;
    QString m_factsHtml;
    QLabel* m_findingsTitle;
    QTreeView* m_findings;
    FindingsModel* m_findingsModel;
    QSortFilterProxyModel* m_findingsProxy;
};

} // namespace rg
